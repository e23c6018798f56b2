// Test helper: one compose lab (docker-compose.yml) per test file on free published ports, with the Docker
// gate and engine from docker.ts: decide (and print) which variant runs, `kemu compose up` (base images when
// missing, image build, all healthy, kubeconfig), and always `kemu compose down --volumes` and stop the engine
// we started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { KEMU_BIN, ROOT } from '@kemu/kemu';
import { run, type RunResult } from './lab.ts';
import { trustLab } from './api.ts';
import { dockerGate, ensureEngine, variantLine, type Engine } from './docker.ts';

export interface DockerPlan {
  file: string;
  /** Why the Docker variant does not run here (decided at collection, without starting anything). */
  skip: string | undefined;
  forced: boolean;
  haveBaseImages: boolean;
  /** Set by startEngine(). */
  engine?: Engine;
}

/** At a test file's top level: the gate (tools, root or engine, base images). Prints the line when it skips. */
export function planDocker(file: string, prerequisite: string | undefined): DockerPlan {
  const gate = prerequisite ? { run: false as const, why: prerequisite.replace(/^skipped: /, '') } : dockerGate();
  if (!gate.run) {
    console.warn(variantLine(file, gate));
    return { file, skip: gate.why, forced: false, haveBaseImages: false };
  }
  return { file, skip: undefined, forced: gate.forced, haveBaseImages: gate.haveBaseImages };
}

/**
 * In beforeAll: the engine (starting it is the last part of the gate). Undefined when it cannot start and the
 * run was not forced — the tests then skip themselves. Prints which variant ran.
 */
export async function startEngine(plan: DockerPlan): Promise<Engine | undefined> {
  const engine = await ensureEngine();
  if (typeof engine === 'string') {
    if (plan.forced) throw new Error(`KEMU_DOCKER_TESTS=1 but ${engine}`);
    console.warn(variantLine(plan.file, { run: false, why: engine }));
    return undefined;
  }
  console.warn(variantLine(plan.file, { run: true, forced: plan.forced, haveBaseImages: plan.haveBaseImages }, engine));
  plan.engine = engine;
  return engine;
}

export interface ContainerState { Status: string; ExitCode: number; Running: boolean; Paused: boolean; Restarting: boolean; RestartCount: number; Health?: string }

function parseState(json: string, restarts: number): ContainerState {
  const st = JSON.parse(json) as Omit<ContainerState, 'Health' | 'RestartCount'> & { Health?: { Status: string } };
  return { ...st, Health: st.Health?.Status, RestartCount: restarts };
}

export interface ComposeLab {
  project: string;
  server: string;
  kubeconfig: string;
  env: Record<string, string>;
  compose(...args: string[]): Promise<RunResult>;
  kubectl(...args: string[]): Promise<RunResult>;
  /** The container id of a service (e.g. controller-manager-1). */
  container(service: string): Promise<string>;
  docker(...args: string[]): Promise<RunResult>;
  /** `docker inspect` State of a service's container. */
  state(service: string): Promise<ContainerState>;
  /** Every container of the lab's project by service, from one `docker inspect`. */
  states(): Promise<Map<string, ContainerState>>;
  /** Seconds `kemu compose up` took (images, build, all healthy and Nodes Ready). */
  upSeconds: number;
  /** What `kemu compose up` printed. */
  upOutput: string;
  /** `kemu compose ARGS` with this lab's project, ports and data dir. */
  kemuCompose(...args: string[]): Promise<RunResult>;
  /** The data dir: kubeconfig and compose.log. */
  dir: string;
  down(): Promise<void>;
}

export async function startComposeLab(plan: DockerPlan, env: Record<string, string> = {}, upArgs: string[] = []): Promise<ComposeLab> {
  const project = `kemulab${process.pid}`;
  const port = await freePort();
  const server = `https://127.0.0.1:${port}`;
  const fullEnv = { KEMU_LB_PORT: String(port), KEMU_STATS_PORT: String(await freePort()), ...env };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-docker-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  // HTTPS: call() and labFetch() use the PKI kemu compose up makes in the data dir.
  trustLab('127.0.0.1', dir);
  const kemuCompose = (sub: string, ...args: string[]) =>
    run(process.execPath, [KEMU_BIN, 'compose', sub, `--project-name=${project}`, `--data-dir=${dir}`, ...(sub === 'up' ? [`--port=${port}`, `--stats-port=${fullEnv.KEMU_STATS_PORT}`, ...upArgs] : []), ...args], fullEnv, 1_800_000);
  const compose = (...args: string[]) => run('docker-compose', ['-p', project, '-f', path.join(ROOT, 'docker-compose.yml'), ...args], fullEnv, 900_000);
  const docker = (...args: string[]) => run('docker', args, {}, 60_000);
  let downed = false;
  const lab: ComposeLab = {
    project,
    server,
    kubeconfig,
    env: fullEnv,
    compose,
    docker,
    kubectl: (...a) => run('kubectl', [`--kubeconfig=${kubeconfig}`, ...a], { HOME: dir }),
    // The docker CLI and compose's labels, not `docker-compose ps`: a Python start per call costs ~0.5 s of CPU,
    // and the chaos tests poll container states every few hundred ms on 2 cores.
    async container(service) {
      const r = await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`, '--filter', `label=com.docker.compose.service=${service}`);
      const id = r.stdout.trim().split('\n')[0] ?? '';
      if (r.code !== 0 || !id) throw new Error(`no container for ${service}: ${r.stderr}`);
      return id;
    },
    async states() {
      const ids = (await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`)).stdout.trim().split('\n').filter(Boolean);
      if (!ids.length) return new Map();
      const r = await docker('inspect', '-f', '{{index .Config.Labels "com.docker.compose.service"}} {{.RestartCount}} {{json .State}}', ...ids);
      const out = new Map<string, ContainerState>();
      // docker ps lists the newest first: a service's current container, not one a recreate left behind.
      for (const line of r.stdout.trim().split('\n').filter(Boolean)) {
        const [service = '', restarts, ...rest] = line.split(' ');
        if (!out.has(service)) out.set(service, parseState(rest.join(' '), Number(restarts)));
      }
      return out;
    },
    async state(service) {
      const r = await docker('inspect', '-f', '{{.RestartCount}} {{json .State}}', await lab.container(service));
      const line = r.stdout.trim();
      const cut = line.indexOf(' ');
      return parseState(line.slice(cut + 1), Number(line.slice(0, cut)));
    },
    upSeconds: 0,
    upOutput: '',
    dir,
    kemuCompose: (sub, ...args) => kemuCompose(sub ?? 'up', ...args),
    async down() {
      if (downed) return;
      downed = true;
      const logs = await compose('logs', '--no-color', '--tail=40');
      if (logs.code === 0) fs.writeFileSync(path.join(os.tmpdir(), `${project}.log`), logs.stdout);
      const d = await kemuCompose('down', '--volumes');
      if (d.code !== 0) await compose('down', '-v', '--remove-orphans', '-t', '5');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Builds the base images when missing (the cold path), the app image whenever the sources changed
    // (cached layers otherwise), and returns once every container is healthy and every Node Ready.
    const t0 = Date.now();
    const u = await kemuCompose('up');
    lab.upSeconds = (Date.now() - t0) / 1000;
    lab.upOutput = u.stdout;
    if (u.code !== 0) throw new Error(`kemu compose up failed:\n${u.stdout.slice(-3000)}\n${u.stderr.slice(-3000)}`);
  } catch (e) {
    await lab.down();
    throw e;
  }
  return lab;
}

export async function waitNodesReady(lab: ComposeLab, n = 3, timeoutMs = 300_000): Promise<void> {
  await waitFor(`${n} Ready nodes`, async () => {
    const r = await lab.kubectl('get', 'nodes', '--no-headers');
    return r.code === 0 && r.stdout.split('\n').filter((l) => /^worker-\d\s+Ready\s/.test(l)).length === n;
  }, timeoutMs, 1000);
}

/**
 * Every service's container running and healthy at once (running, for a service without a health check, such as
 * kube-addon-manager). On a timeout the error names the services that were
 * not, with their state and last log lines, so a red run says which container and why.
 */
export async function waitAllHealthy(lab: ComposeLab, timeoutMs = 180_000): Promise<void> {
  const services = (await lab.compose('config', '--services')).stdout.trim().split('\n');
  let bad: string[] = [];
  try {
    await waitFor('every container healthy', async () => {
      const states = await lab.states();
      bad = services.map((s) => [s, states.get(s)] as const).filter(([, st]) => !(st?.Running && !st.Paused && (st.Health === 'healthy' || st.Health === undefined)))
        .map(([s, st]) => (st ? `${s} (${st.Status}, health ${st.Health ?? 'none'}, exit ${st.ExitCode}, restarts ${st.RestartCount})` : `${s} (no container)`));
      return bad.length === 0;
    }, timeoutMs, 1000);
  } catch (e) {
    const names = bad.map((b) => b.split(' ')[0]!);
    const logs = names.length ? (await lab.compose('logs', '--no-color', '--tail=15', ...names)).stdout : '';
    throw new Error(`${(e as Error).message}; not healthy: ${bad.join(', ')}\n${logs.slice(-6000)}`);
  }
}

// `kemu compose up|down`: the container lab (docker-compose.yml) from nothing in one command. Up checks Docker and
// compose, gets the base images when missing (pull, else the offline stand-ins of scripts/build-base-images.sh),
// builds the kemu image, starts the services, waits for every health check and the Nodes, writes the kubeconfig.
// Each step prints one line with its elapsed time; the details go to DIR/compose.log. A failure names the step,
// the log and the fix.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseFlags, type FlagSpecs } from '@kemu/base';
import { ROOT } from '../topology.ts';
import { probe } from '../probe.ts';
import { ensureLabPki, readLabTls } from '../lab-pki.ts';
import { ensureLabBootstrap, labAdminClient } from '../lab-bootstrap.ts';
import { ensureLabAddons } from '../lab-addons.ts';
import { ensureClusterAutoscalerIdentity } from '../cluster-autoscaler-identity.ts';
import { COMPOSE_FIX, checkDocker, containerStates, findCompose, imageExists, runLogged, type Compose } from '../compose/docker.ts';
import { Progress } from '../compose/progress.ts';
import { UsageError } from './errors.ts';
import { COMPOSE_METRICS_SERVER_PORT, METRICS_SERVER_CONTAINER, ensureComposeMetricsServer, retryUntil } from '../compose/metrics-server.ts';
import { ensureMetricsServerObjects } from '../metrics-server-objects.ts';
import { ETCD_COMPOSE_FILE, ETCD_MEMBERS, prepareEtcdBuildContext } from '../compose/etcd-compose.ts';
import { ensureEtcdPki } from '@kemu/pki';

export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
export const BASE_IMAGES = ['node:20-bookworm-slim', 'haproxy:2.6'] as const;

const COMMON_FLAGS = {
  'data-dir': { type: 'string', default: './.kemu/compose', usage: 'Directory for the kubeconfig and compose.log' },
  'project-name': { type: 'string', default: 'kemu', usage: 'Compose project name (prefix of its network and volume)' },
} as const satisfies FlagSpecs;

// Each flag sets the compose file's variable; unset ones keep the file's defaults (Kubernetes').
const ENV_FLAGS: Record<string, string> = {
  'leader-elect-lease-duration': 'KEMU_LEASE_DURATION',
  'leader-elect-renew-deadline': 'KEMU_RENEW_DEADLINE',
  'leader-elect-retry-period': 'KEMU_RETRY_PERIOD',
  'node-monitor-grace-period': 'KEMU_NODE_MONITOR_GRACE_PERIOD',
  'node-monitor-period': 'KEMU_NODE_MONITOR_PERIOD',
  'default-not-ready-toleration-seconds': 'KEMU_DEFAULT_NOT_READY_TOLERATION_SECONDS',
  'default-unreachable-toleration-seconds': 'KEMU_DEFAULT_UNREACHABLE_TOLERATION_SECONDS',
  'node-status-update-frequency': 'KEMU_NODE_STATUS_UPDATE_FREQUENCY',
  'image-pull-delay': 'KEMU_IMAGE_PULL_DELAY',
  'horizontal-pod-autoscaler-sync-period': 'KEMU_HPA_SYNC_PERIOD',
  'horizontal-pod-autoscaler-downscale-stabilization': 'KEMU_HPA_DOWNSCALE_STABILIZATION',
  'cpu-usage-window': 'KEMU_CPU_USAGE_WINDOW',
  'addon-check-interval': 'KEMU_ADDON_CHECK_INTERVAL',
  'metric-resolution': 'KEMU_METRIC_RESOLUTION',
};

export const COMPOSE_UP_FLAGS = {
  ...COMMON_FLAGS,
  port: { type: 'int', default: 0, usage: 'Host port of the balancer (the kubeconfig\'s server is https://127.0.0.1:PORT); 0: $KEMU_LB_PORT, else 6443' },
  'stats-port': { type: 'int', default: 0, usage: 'Host port of HAProxy\'s stats page; 0: $KEMU_STATS_PORT, else 8404' },
  'base-images': { type: 'string', default: 'auto', usage: 'Missing node:20-bookworm-slim / haproxy:2.6: pull, build (offline stand-ins, needs root and debootstrap), or auto (pull, else build)' },
  store: { type: 'string', default: 'sqlite', usage: 'sqlite (the state volume) or etcd (three etcd members with TLS, docker-compose.etcd.yml over docker-compose.yml; the etcd image gets the host\'s etcd binary)' },
  timeout: { type: 'duration', default: 180_000, usage: 'How long to wait for every container to be healthy and every Node Ready' },
  ...Object.fromEntries(Object.entries(ENV_FLAGS).map(([k, env]) => [k, { type: 'string', default: '', usage: `Sets ${env} (the compose file's default when empty)` }])),
} as const satisfies FlagSpecs;

export const COMPOSE_DOWN_FLAGS = {
  ...COMMON_FLAGS,
  volumes: { type: 'bool', default: false, usage: 'Also remove the state volume (the cluster\'s SQLite store)' },
  v: { type: 'bool', default: false, usage: 'Alias of --volumes' },
} as const satisfies FlagSpecs;

/** The services of docker-compose.yml with their container names. */
export function composeServices(file = COMPOSE_FILE, ...overrides: string[]): { service: string; container: string }[] {
  const seen = new Map<string, string>();
  for (const f of [file, ...overrides]) {
    const doc = parse(fs.readFileSync(f, 'utf8'), { merge: true }) as { services: Record<string, { container_name?: string }> };
    for (const [service, s] of Object.entries(doc.services)) seen.set(service, s.container_name ?? seen.get(service) ?? service);
  }
  return [...seen].map(([service, container]) => ({ service, container }));
}

class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${step}: ${problem}`);
  }
}

function lastLines(file: string, n: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '';
  }
}

function composeRunner(c: Compose, project: string, env: NodeJS.ProcessEnv, log: string, files: string[] = [COMPOSE_FILE]) {
  return (args: string[], onLine?: (l: string) => void, timeoutMs = 1_800_000) =>
    runLogged(c.argv[0] ?? 'docker-compose', [...c.argv.slice(1), '-p', project, ...files.flatMap((f) => ['-f', f]), ...args], { env, log, cwd: ROOT, timeoutMs, ...(onLine ? { onLine } : {}) });
}

export async function composeCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'up') return composeUp(rest);
  if (sub === 'down') return composeDown(rest);
  // Inside the lab: the `cloud` service's command.
  if (sub === 'cloud') return (await import('../compose/cloud.ts')).composeCloud(rest);
  throw new UsageError(`kemu compose needs up or down (got ${sub ?? 'nothing'})`);
}

async function preflight(p: Progress): Promise<Compose> {
  const docker = await checkDocker();
  if (!docker.ok) throw new StepFailed('checking Docker', docker.problem ?? 'Docker is not usable', docker.fix ?? '');
  const compose = await findCompose();
  if (!compose) throw new StepFailed('checking docker-compose', 'neither docker-compose nor the docker compose plugin is installed', COMPOSE_FIX);
  p.say(`Docker engine ${docker.version}, ${compose.argv.join(' ')} ${compose.version}`);
  return compose;
}

async function baseImages(p: Progress, mode: string, log: string): Promise<void> {
  const missing: string[] = [];
  for (const img of BASE_IMAGES) if (!(await imageExists(img))) missing.push(img);
  if (missing.length === 0) {
    p.say(`base images present: ${BASE_IMAGES.join(', ')}`);
    return;
  }
  const t0 = Date.now();
  let still = missing;
  if (mode !== 'build') {
    p.say(`pulling ${missing.join(', ')} (log: ${log})`);
    const failed: string[] = [];
    for (const img of missing) {
      const r = await runLogged('docker', ['pull', '-q', img], { log, timeoutMs: 600_000 });
      if (r.code !== 0) failed.push(img);
    }
    still = failed;
    if (still.length === 0) {
      p.say(`pulled in ${p.elapsed(t0)}`);
      return;
    }
    if (mode === 'pull')
      throw new StepFailed(`pulling ${still.join(', ')}`, `the registry could not be reached or refused (last lines of ${log}):\n${lastLines(log, 3)}`, 'fix the network or registry access, or build offline stand-ins: kemu compose up --base-images build (root, debootstrap)');
    p.say(`cannot pull ${still.join(', ')} (no registry access; see ${log}): building offline stand-ins instead`);
  }
  if (process.getuid?.() !== 0)
    throw new StepFailed('building the base images', 'the offline stand-ins are built with debootstrap, which needs root', `run as root: sudo npx kemu compose up --base-images build (or sudo scripts/build-base-images.sh once), or give this machine access to Docker Hub`);
  const script = path.join(ROOT, 'scripts/build-base-images.sh');
  p.say(`building ${still.join(', ')} with scripts/build-base-images.sh (debootstrap, ~5 min; details in /var/tmp/kemu-base-images/*.log)`);
  const r = await runLogged('bash', [script], { log, onLine: (l) => p.say(`  ${l.replace(/^\[\d+m\d+s\] /, `[${p.elapsed(t0)}] `)}`), timeoutMs: 1_800_000 });
  if (r.code !== 0)
    throw new StepFailed('building the base images', `scripts/build-base-images.sh exited ${r.code} (last lines of ${log}):\n${lastLines(log, 5)}`, 'the error line above names what is missing (root, debootstrap, node/npm on this host, the Debian mirror); fix it and run kemu compose up again');
  p.say(`base images built in ${p.elapsed(t0)}`);
}

async function composeUp(argv: string[]): Promise<number> {
  const f = parseFlags(COMPOSE_UP_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu compose up takes no arguments (got ${f._.join(' ')})`);
  if (!['auto', 'pull', 'build'].includes(f['base-images'])) throw new UsageError(`--base-images must be auto, pull or build (got "${f['base-images']}")`);
  if (!['sqlite', 'etcd'].includes(f.store)) throw new UsageError(`--store must be sqlite or etcd (got "${f.store}")`);
  const onEtcd = f.store === 'etcd';
  if (onEtcd) {
    const why = prepareEtcdBuildContext();
    if (why) throw new UsageError(`--store etcd: ${why}`);
  }
  const files = onEtcd ? [COMPOSE_FILE, ETCD_COMPOSE_FILE] : [COMPOSE_FILE];
  const ports = { port: f.port || Number(process.env.KEMU_LB_PORT || 6443), 'stats-port': f['stats-port'] || Number(process.env.KEMU_STATS_PORT || 8404) };
  for (const k of ['port', 'stats-port'] as const)
    if (!Number.isInteger(ports[k]) || ports[k] < 1 || ports[k] > 65535) throw new UsageError(`--${k} ${ports[k]} is not a TCP port`);
  const dataDir = path.resolve(f['data-dir']);
  fs.mkdirSync(dataDir, { recursive: true });
  const log = path.join(dataDir, 'compose.log');
  fs.writeFileSync(log, `kemu compose up, ${new Date().toISOString()}\n`);
  // The data dir holds the PKI and kubeconfigs the containers mount at /etc/kubernetes.
  const env: NodeJS.ProcessEnv = { ...process.env, KEMU_DATA_DIR: dataDir, KEMU_LB_PORT: String(ports.port), KEMU_STATS_PORT: String(ports['stats-port']), COMPOSE_DOCKER_CLI_BUILD: '0', DOCKER_BUILDKIT: '0' };
  const flagValues = f as unknown as Record<string, string>;
  for (const [flag, name] of Object.entries(ENV_FLAGS)) if (flagValues[flag]) env[name] = flagValues[flag];
  const p = new Progress();
  const t0 = Date.now();
  try {
    const compose = await preflight(p);
    const run = composeRunner(compose, f['project-name'], env, log, files);
    await baseImages(p, f['base-images'], log);

    const tb = Date.now();
    p.say(`building the kemu image (npm ci inside it takes ~2 min the first time; log: ${log})`);
    let total = '';
    let stepLine = 'sending the build context';
    const show = () => p.status(`${stepLine} — ${p.elapsed(tb)}`);
    // A step such as npm ci prints nothing for minutes: the line keeps counting.
    const tick = setInterval(show, 1000);
    const built = await run(['build'], (l) => {
      const m = /^Step (\d+)\/(\d+) : (.*)$/.exec(l);
      if (m) {
        total = m[2] ?? '';
        stepLine = `build step ${m[1]}/${m[2]}: ${(m[3] ?? '').slice(0, 70)}`;
        show();
      }
    });
    clearInterval(tick);
    p.clear();
    if (built.code !== 0)
      throw new StepFailed('building the kemu image', `the image build failed (last lines of ${log}):\n${lastLines(log, 8)}`, 'the failing build step is in the log; fix it and run kemu compose up again');
    p.say(`kemu image ready in ${p.elapsed(tb)}${total ? ` (${total} steps, cached ones are instant)` : ''}`);

    const services = composeServices(...files);
    // The PKI, as kemu up makes it: SANs for the containers' names (and 127.0.0.1, the published port), the
    // components' kubeconfigs on https://lb:6443, the user's on the published port.
    const tp = Date.now();
    const server = `https://127.0.0.1:${ports.port}`;
    const pkiActions = await ensureLabPki({
      dataDir,
      server: 'https://lb:6443',
      userServer: server,
      lbAddress: 'lb',
      apiserverAddresses: services.filter((s) => s.service.startsWith('apiserver-')).map((s) => s.container),
      // The workers bootstrap (their CSRs get their certificates): none issued here.
      nodes: [],
    });
    // The members' certificate names them as the apiservers reach them (etcd-N on the compose network).
    if (onEtcd) pkiActions.push(...(await ensureEtcdPki({ dataDir, members: [...ETCD_MEMBERS] })));
    const made = pkiActions.filter((a) => a.action !== 'kept').length;
    p.say(`pki in ${path.join(dataDir, 'pki')}/ (mounted at /etc/kubernetes): ${made ? `${made} files made in ${p.elapsed(tp)}` : 'kept'}`);
    const tls = readLabTls(dataDir);
    const ts = Date.now();
    // Workers start last: their bootstrap token Secret and bindings are made once an apiserver answers; so do the
    // node groups' cloud (its machines bootstrap too) and the cluster-autoscaler (its ServiceAccount token).
    // metrics-server too: it needs its RBAC (and its Endpoints name its address, known once it runs).
    const late = (s: { service: string }) => s.service.startsWith('worker-') || s.service === 'cloud' || s.service === 'cluster-autoscaler' || s.service === METRICS_SERVER_CONTAINER;
    const workers = services.filter(late);
    const control = services.filter((s) => !late(s));
    const addons = ensureLabAddons(dataDir);
    if (addons.seeded.length) p.say(`addons in ${addons.dir}/ (mounted at /etc/kubernetes/addons): ${addons.seeded.join(', ')}`);
    p.say(`starting ${control.length} containers (${control.map((s) => s.container).join(', ')})`);
    let started = 0;
    const onLine = (l: string) => {
      if (/done|Started|Created|Running/i.test(l)) p.status(`compose: ${++started} events, ${p.elapsed(ts)}: ${l.trim().slice(0, 70)}`);
    };
    // No --remove-orphans here: the node groups' machines are containers of the project that no service names, and
    // a second `up` must not take them from under the autoscaler (kemu compose down removes them).
    let up = await run(['up', '-d', '--no-build', ...control.map((s) => s.service)], onLine);
    p.clear();
    if (up.code === 0 && workers.length) {
      await bootstrapObjects(p, dataDir, server, tls, Date.now() + f.timeout, services.some((s) => s.service === METRICS_SERVER_CONTAINER));
      p.say(`starting ${workers.length} containers (${workers.map((s) => s.container).join(', ')}): the workers bootstrap with the token in bootstrap-kubelet.kubeconfig`);
      up = await run(['up', '-d', '--no-build', ...workers.map((s) => s.service)], onLine);
      p.clear();
      if (up.code === 0 && workers.some((s) => s.service === METRICS_SERVER_CONTAINER)) await metricsServerEndpoints(p, dataDir, Date.now() + f.timeout);
    }
    if (up.code !== 0) {
      const conflict = /Conflict|already in use/.test(lastLines(log, 20));
      throw new StepFailed(
        'starting the containers',
        `${compose.argv.join(' ')} up failed (last lines of ${log}):\n${lastLines(log, 6)}`,
        conflict
          ? 'another lab holds these container names or ports: stop it (kemu compose down, or docker rm -f <name>) or pick other ports with --port/--stats-port'
          : 'kemu compose down removes what was created; then fix the error above and run kemu compose up again',
      );
    }

    const deadline = Date.now() + f.timeout;
    const names = services.map((s) => s.container);
    let healthyAt = 0;
    for (;;) {
      const states = await containerStates(names);
      const healthy = states.filter((s) => s.health === 'healthy' || (!s.health && s.status === 'running'));
      const bad = states.filter((s) => s.status === 'exited' || s.status === 'dead' || s.health === 'unhealthy');
      const waiting = names.filter((n) => !healthy.some((h) => h.name === n));
      let nodes = '';
      if (waiting.length === 0) {
        if (!healthyAt) healthyAt = Date.now();
        const r = await probe(`${server}/api/v1/nodes`, 2000, tls);
        const ready = r.ok ? countReadyNodes(r.body ?? '') : 0;
        const want = services.filter((s) => s.service.startsWith('worker-')).length;
        if (ready >= want) break;
        nodes = `; Nodes Ready ${ready}/${want}`;
      }
      p.status(`healthy ${healthy.length}/${names.length}${waiting.length ? ` (waiting: ${waiting.slice(0, 4).join(', ')}${waiting.length > 4 ? ', …' : ''})` : ''}${nodes}${bad.length ? `; failing: ${bad.map((b) => `${b.name} ${b.health ?? b.status}`).join(', ')}` : ''} — ${p.elapsed(ts)}`);
      if (Date.now() > deadline) {
        p.clear();
        throw new StepFailed(
          'waiting for health',
          `not healthy within ${f.timeout / 1000}s: ${waiting.length ? waiting.join(', ') : 'the Nodes did not all become Ready'}`,
          `look at their logs (docker logs ${waiting[0] ?? 'worker-0'}); kemu compose down tears the lab down`,
        );
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    p.clear();
    const kubeconfig = path.join(dataDir, 'kubeconfig');
    p.say(`all ${names.length} containers healthy and every Node Ready in ${p.elapsed(ts)} (total ${p.elapsed(t0)})`);
    p.say(`export KUBECONFIG=${kubeconfig}`);
    p.say('kubectl get nodes   |   kubectl -n kube-system get leases   (holder controller-manager-N_<uuid> is container controller-manager-N)');
    p.say('docker stop controller-manager-0   |   docker pause worker-1 (eviction after the toleration: --default-unreachable-toleration-seconds)');
    p.say(`docker logs -f apiserver-0   |   HAProxy stats http://127.0.0.1:${ports['stats-port']}/   |   kemu compose down [--volumes] stops everything`);
    return 0;
  } catch (e) {
    p.clear();
    if (!(e instanceof StepFailed)) throw e;
    process.stderr.write(`[kemu] FAILED at step "${e.step}" after ${p.elapsed(t0)}: ${e.problem}\n[kemu] log: ${log}\n[kemu] fix: ${e.fix}\n`);
    return 1;
  }
}

/** The Endpoints of kube-system/metrics-server: the container's IP now that it runs (Docker picked it). */
async function metricsServerEndpoints(p: Progress, dataDir: string, deadline: number): Promise<void> {
  const t0 = Date.now();
  const client = labAdminClient(dataDir);
  try {
    const ms = await ensureComposeMetricsServer(client, deadline, (why) => p.status(`metrics-server's Endpoints: ${why}; retrying — ${p.elapsed(t0)}`));
    p.clear();
    p.say(`metrics-server: ${ms.address}:${COMPOSE_METRICS_SERVER_PORT} (container ${METRICS_SERVER_CONTAINER}) behind APIService v1beta1.metrics.k8s.io${ms.made.length ? `; made ${ms.made.join(', ')}` : ''}`);
  } catch (e) {
    throw new StepFailed("writing metrics-server's Endpoints", (e as Error).message, `look at docker logs ${METRICS_SERVER_CONTAINER} and the apiservers' logs; kemu compose up again retries`);
  } finally {
    await client.close();
  }
}

/** Seed 003 section 8 for the containers: waits for the balancer, then makes the token Secret, bindings, cluster-info and bootstrap-kubelet.kubeconfig (and metrics-server's RBAC, Service, APIService). */
async function bootstrapObjects(p: Progress, dataDir: string, server: string, tls: ReturnType<typeof readLabTls>, deadline: number, metricsServer: boolean): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    p.status(`waiting for an apiserver through ${server} to make the bootstrap token — ${p.elapsed(t0)}`);
    if ((await probe(`${server}/readyz`, 2000, tls)).ok) break;
    if (Date.now() > deadline)
      throw new StepFailed('making the bootstrap token', `no apiserver answered through ${server}`, 'look at their logs (docker logs apiserver-0); kemu compose down tears the lab down');
    await new Promise((r) => setTimeout(r, 1000));
  }
  const client = labAdminClient(dataDir);
  try {
    // The containers reach the apiservers through the balancer's container name.
    const r = await ensureLabBootstrap(client, { dataDir, server: 'https://lb:6443' });
    p.clear();
    p.say(`bootstrap token ${r.token.split('.')[0]} in ${path.join(dataDir, 'bootstrap-kubelet.kubeconfig')}${r.made.length ? `: made ${r.made.join(', ')}` : ': kept'} in ${p.elapsed(t0)}`);
    // Retried: on a loaded machine a request through the balancer can fail once (a connection closed).
    for (let attempt = 1; ; attempt++) {
      try {
        const made = await ensureClusterAutoscalerIdentity(client, { dataDir, server: 'https://lb:6443' });
        p.say(`cluster-autoscaler: ServiceAccount kube-system/cluster-autoscaler${made.length ? ` (made ${made.join(', ')})` : ''}, its token in ${path.join(dataDir, 'cluster-autoscaler.kubeconfig')}`);
        break;
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`the cluster-autoscaler's ServiceAccount, roles and token: ${(e as Error).message}`);
        p.status(`cluster-autoscaler's ServiceAccount: attempt ${attempt} failed (${(e as Error).message}); retrying — ${p.elapsed(t0)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    // metrics-server exits when it cannot read extension-apiserver-authentication: its RBAC before it starts.
    if (metricsServer) {
      const made = await retryUntil(deadline, () => ensureMetricsServerObjects(client, [], COMPOSE_METRICS_SERVER_PORT), (why) => p.status(`metrics-server's objects: ${why}; retrying — ${p.elapsed(t0)}`));
      p.clear();
      if (made.length) p.say(`metrics-server: made ${made.join(', ')}`);
    }
  } catch (e) {
    throw new StepFailed('making the bootstrap token', (e as Error).message, 'look at the apiservers\' logs (docker logs apiserver-0); kemu compose up again retries');
  } finally {
    await client.close();
  }
}

function countReadyNodes(body: string): number {
  try {
    const list = JSON.parse(body) as { items?: { status?: { conditions?: { type: string; status: string }[] } }[] };
    return (list.items ?? []).filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  } catch {
    return 0;
  }
}

async function composeDown(argv: string[]): Promise<number> {
  const f = parseFlags(COMPOSE_DOWN_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu compose down takes no arguments (got ${f._.join(' ')})`);
  const p = new Progress();
  const dataDir = path.resolve(f['data-dir']);
  fs.mkdirSync(dataDir, { recursive: true });
  const log = path.join(dataDir, 'compose.log');
  fs.appendFileSync(log, `kemu compose down, ${new Date().toISOString()}\n`);
  try {
    const compose = await preflight(p);
    // With the etcd override too, so its members and (--volumes) their volumes go as well.
    const run = composeRunner(compose, f['project-name'], process.env, log, [COMPOSE_FILE, ETCD_COMPOSE_FILE]);
    const volumes = f.volumes || f.v;
    p.say(`stopping and removing the containers and the network${volumes ? ' and the state volume' : ' (the state volume stays: --volumes removes it)'}`);
    const r = await run(['down', '--remove-orphans', '-t', '15', ...(volumes ? ['-v'] : [])], (l) => p.status(l.trim().slice(0, 100)));
    p.clear();
    if (r.code !== 0) throw new StepFailed('compose down', `failed (last lines of ${log}):\n${lastLines(log, 6)}`, 'remove what is left by hand: docker rm -f <name>, docker network rm, docker volume rm');
    fs.rmSync(path.join(dataDir, 'kubeconfig'), { force: true });
    p.say(`down in ${p.elapsed()}`);
    return 0;
  } catch (e) {
    p.clear();
    if (!(e instanceof StepFailed)) throw e;
    process.stderr.write(`[kemu] FAILED at step "${e.step}": ${e.problem}\n[kemu] log: ${log}\n[kemu] fix: ${e.fix}\n`);
    return 1;
  }
}

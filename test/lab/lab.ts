// Test helper: run a real `kemu up` lab in a temp dir on a loopback /24 of its own (a random 127.x.y.0, so
// parallel test files never meet) with the balancer on a free port of its .1, drive it with the kemu CLI and
// kubectl, and always tear it down (kemu down, then SIGKILL by pid for anything left).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProcess, waitFor, BIN, type Proc } from '@kemu/base/testing/processes';
import { freeLabAddress } from '@kemu/base/testing/ports';
import { isImplemented, BINARIES, readState, pidAlive, type NodeKind, type LabState } from '@kemu/kemu';
import { trustLab } from './api.ts';

/** Undefined when every kind is implemented, else a skip message naming what is missing. */
export function missing(...kinds: NodeKind[]): string | undefined {
  const absent = kinds.filter((k) => !isImplemented(k));
  if (!absent.length) return undefined;
  return `skipped: not implemented yet: ${absent.map((k) => `${BINARIES[k].bin} (packages/${BINARIES[k].pkg}/src/main.ts)`).join(', ')}`;
}

export function hasKubectl(): boolean {
  return ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].some((p) => fs.existsSync(p));
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export interface LabOptions {
  apiservers?: number;
  controllerManagers?: number;
  schedulers?: number;
  /** kube-addon-manager replicas; 0 unless asked, so kube-system stays empty for the files that count its pods. */
  addonManagers?: number;
  /** Their period (kemu up --addon-check-interval). */
  addonCheckInterval?: string;
  workers?: number;
  /** metrics-server replicas behind v1beta1.metrics.k8s.io; 0 unless asked (only files reading metrics pay for one). */
  metricsServers?: number;
  /** Their --metric-resolution (kemu up's); 3s here so usage shows within seconds. */
  metricResolution?: string;
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
  nodeMonitorGracePeriod?: string;
  nodeMonitorPeriod?: string;
  nodeStatusUpdateFrequency?: string;
  nodeLeaseDurationSeconds?: number;
  maxPods?: number;
  imagePullDelay?: string;
  lb?: 'builtin' | 'haproxy';
  extra?: string[];
  /** Reuse this data dir (a restart of an earlier lab); down() then leaves it in place. */
  dir?: string;
}

export interface Lab {
  dir: string;
  /** The balancer's address; the lab's processes are on the rest of its /24. */
  address: string;
  port: number;
  server: string;
  kubeconfig: string;
  proc: Proc;
  state(): LabState;
  /** http(s)://<address>:<port> of a component (an apiserver's own URL, past the balancer; https for the others). */
  url(name: string): string;
  kemu(...args: string[]): Promise<RunResult>;
  kubectl(...args: string[]): Promise<RunResult>;
  kubectlJson<T = unknown>(...args: string[]): Promise<T>;
  pid(name: string): number | null;
  /** Every pid kemu.json has ever shown for this lab (to check none survives). */
  allPids(): number[];
  waitRunning(names?: string[], timeoutMs?: number): Promise<void>;
  down(): Promise<void>;
}

/** Short durations for tests: a lease moves within seconds. */
export const FAST = { leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '500ms' };

export async function startLab(o: LabOptions = {}): Promise<Lab> {
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-lab-'));
  const { address, port } = await freeLabAddress();
  const args = [
    'up',
    `--data-dir=${dir}`,
    `--address=${address}`,
    `--port=${port}`,
    `--lb=${o.lb ?? 'builtin'}`,
    `--apiservers=${o.apiservers ?? 3}`,
    `--controller-managers=${o.controllerManagers ?? 2}`,
    `--schedulers=${o.schedulers ?? 2}`,
    `--workers=${o.workers ?? 2}`,
    `--addon-managers=${o.addonManagers ?? 0}`,
    `--metrics-servers=${o.metricsServers ?? 0}`,
    `--metric-resolution=${o.metricResolution ?? '3s'}`,
    `--leader-elect-lease-duration=${o.leaseDuration ?? FAST.leaseDuration}`,
    `--leader-elect-renew-deadline=${o.renewDeadline ?? FAST.renewDeadline}`,
    `--leader-elect-retry-period=${o.retryPeriod ?? FAST.retryPeriod}`,
    '--stop-grace-period=5s',
  ];
  if (o.nodeMonitorGracePeriod) args.push(`--node-monitor-grace-period=${o.nodeMonitorGracePeriod}`);
  if (o.nodeMonitorPeriod) args.push(`--node-monitor-period=${o.nodeMonitorPeriod}`);
  if (o.nodeStatusUpdateFrequency) args.push(`--node-status-update-frequency=${o.nodeStatusUpdateFrequency}`);
  if (o.nodeLeaseDurationSeconds) args.push(`--node-lease-duration-seconds=${o.nodeLeaseDurationSeconds}`);
  if (o.maxPods) args.push(`--max-pods=${o.maxPods}`);
  if (o.imagePullDelay) args.push(`--image-pull-delay=${o.imagePullDelay}`);
  if (o.addonCheckInterval) args.push(`--addon-check-interval=${o.addonCheckInterval}`);
  args.push(...(o.extra ?? []));
  const proc = startProcess('kemu', BIN.kemu, args);
  const seen = new Set<number>();
  const state = () => {
    const s = readState(dir);
    for (const c of s.components) if (c.pid) seen.add(c.pid);
    seen.add(s.supervisorPid);
    return s;
  };
  const kubeconfig = path.join(dir, 'kubeconfig');
  // HTTPS: call() and labFetch() use the lab's CA and admin certificate for every address of its /24.
  trustLab(`${address.split('.').slice(0, 3).join('.')}.`, dir);
  const lab: Lab = {
    dir,
    address,
    port,
    server: `https://${address}:${port}`,
    kubeconfig,
    proc,
    state,
    url(name) {
      const c = state().components.find((x) => x.name === name);
      if (!c?.address) throw new Error(`no component ${name} with an address in kemu.json`);
      // A --secure-port is HTTPS even where the health probe is not (a kubelet's probe is its plain healthz port).
      const secure = c.ports['secure-port'] !== undefined || c.healthUrl?.startsWith('https:');
      return `${secure ? 'https' : 'http'}://${c.address}:${c.ports['secure-port'] ?? c.ports.port}`;
    },
    kemu: (...a) => run(process.execPath, [BIN.kemu, ...a, `--data-dir=${dir}`]),
    kubectl: (...a) => run('kubectl', [`--kubeconfig=${kubeconfig}`, ...a], { HOME: dir }),
    async kubectlJson<T>(...a: string[]) {
      const r = await lab.kubectl(...a, '-o', 'json');
      if (r.code !== 0) throw new Error(`kubectl ${a.join(' ')}: ${r.stderr}`);
      return JSON.parse(r.stdout) as T;
    },
    pid: (name) => state().components.find((c) => c.name === name)?.pid ?? null,
    allPids: () => {
      try {
        state();
      } catch {
        // keep what we saw
      }
      return [...seen];
    },
    async waitRunning(names, timeoutMs = 90_000) {
      await waitFor(
        `lab components running${names ? ` (${names.join(', ')})` : ''}`,
        () => {
          if (proc.child.exitCode !== null) throw new Error(`kemu up exited: ${proc.output()}`);
          const s = state();
          const want = s.components.filter((c) => !names || names.includes(c.name));
          return want.length > 0 && want.every((c) => c.state === 'running');
        },
        timeoutMs,
        200,
      );
    },
    async down() {
      if (proc.child.exitCode === null && proc.child.signalCode === null) await lab.kemu('down');
      await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 20_000))]);
      for (const p of lab.allPids()) if (pidAlive(p)) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
      await proc.kill('SIGKILL');
      if (!o.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await waitFor('kemu.json', () => fs.existsSync(path.join(dir, 'kemu.json')) || (proc.child.exitCode !== null && Promise.reject(new Error(proc.output()))), 30_000, 100);
  return lab;
}

// The lab's topology as a list of process specs: which binary, which flags, which ports, how to tell it is up.
// Names are each process's --hostname-override, so a Lease holder "controller-manager-1_<uuid>" names its process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '@kemu/base';
import { pickPort } from './ports.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export type ComponentKind = 'lb' | 'apiserver' | 'controller-manager' | 'scheduler' | 'worker';

export interface ComponentSpec {
  name: string;
  kind: ComponentKind;
  /** Executable and arguments; Node binaries run with process.execPath. */
  command: string;
  args: string[];
  /** GET this URL; 200 means the component is up. */
  healthUrl?: string;
  ports: Record<string, number>;
}

export const BINARIES: Record<Exclude<ComponentKind, 'lb'>, { pkg: string; bin: string }> = {
  apiserver: { pkg: 'apiserver', bin: 'kube-apiserver' },
  'controller-manager': { pkg: 'controller-manager', bin: 'kube-controller-manager' },
  scheduler: { pkg: 'scheduler', bin: 'kube-scheduler' },
  worker: { pkg: 'kubelet', bin: 'kubelet' },
};

export function binPath(kind: Exclude<ComponentKind, 'lb'>): string {
  const b = BINARIES[kind];
  return path.join(ROOT, 'packages', b.pkg, 'bin', `${b.bin}.js`);
}

/** A component exists once its package has a src/main.ts behind the bin stub. */
export function isImplemented(kind: Exclude<ComponentKind, 'lb'>): boolean {
  return fs.existsSync(path.join(ROOT, 'packages', BINARIES[kind].pkg, 'src', 'main.ts'));
}

export const KEMU_BIN = path.join(ROOT, 'packages/kemu/bin/kemu.js');

export interface TopologyOptions {
  dataDir: string;
  port: number;
  apiservers: number;
  controllerManagers: number;
  schedulers: number;
  workers: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeMonitorPeriodMs: number;
  nodeStatusUpdateFrequencyMs: number;
  nodeLeaseDurationSeconds: number;
  maxPods: number;
  imagePullDelayMs: number;
  v: number;
  /** --logging-format of every component (text or json). */
  loggingFormat: string;
}

export interface Topology {
  apiservers: ComponentSpec[];
  controllerManagers: ComponentSpec[];
  schedulers: ComponentSpec[];
  workers: ComponentSpec[];
  /** Kinds left out because their binary is not implemented yet. */
  missing: Exclude<ComponentKind, 'lb'>[];
}

/**
 * Lays the components out on loopback. With the default --port 6443 the ports are the memorable ones
 * (apiservers 16443+N, controller-managers 10257+100N, …) when free; otherwise the kernel picks.
 */
export async function planTopology(o: TopologyOptions, taken: Set<number>): Promise<Topology> {
  const fixed = o.port === 6443;
  const pref = (base: number, i: number) => (fixed ? base + i : undefined);
  const master = `http://127.0.0.1:${o.port}`;
  const v = ['--v', String(o.v), `--logging-format=${o.loggingFormat}`];
  const leaderFlags = [
    `--leader-elect-lease-duration=${formatDuration(o.leaseDurationMs)}`,
    `--leader-elect-renew-deadline=${formatDuration(o.renewDeadlineMs)}`,
    `--leader-elect-retry-period=${formatDuration(o.retryPeriodMs)}`,
  ];
  const missing: Exclude<ComponentKind, 'lb'>[] = [];
  const wanted = (kind: Exclude<ComponentKind, 'lb'>, n: number) => {
    if (n > 0 && !isImplemented(kind)) {
      missing.push(kind);
      return 0;
    }
    return n;
  };
  const node = (kind: Exclude<ComponentKind, 'lb'>, name: string, args: string[], port: number, probe: string): ComponentSpec => ({
    name,
    kind,
    command: process.execPath,
    args: [binPath(kind), ...args],
    healthUrl: `http://127.0.0.1:${port}${probe}`,
    ports: { 'secure-port': port },
  });

  const apiservers: ComponentSpec[] = [];
  for (let i = 0; i < wanted('apiserver', o.apiservers); i++) {
    const p = await pickPort(taken, pref(16443, i));
    apiservers.push(
      node('apiserver', `apiserver-${i}`, [
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${p}`,
        `--datastore-endpoint=sqlite://${path.join(o.dataDir, 'state.db')}`,
        `--hostname-override=apiserver-${i}`,
        ...v,
      ], p, '/readyz'),
    );
  }
  const controllerManagers: ComponentSpec[] = [];
  for (let i = 0; i < wanted('controller-manager', o.controllerManagers); i++) {
    const p = await pickPort(taken, pref(10257, 100 * i));
    controllerManagers.push(
      node('controller-manager', `controller-manager-${i}`, [
        `--master=${master}`,
        `--hostname-override=controller-manager-${i}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${p}`,
        ...leaderFlags,
        `--node-monitor-grace-period=${formatDuration(o.nodeMonitorGracePeriodMs)}`,
        `--node-monitor-period=${formatDuration(o.nodeMonitorPeriodMs)}`,
        // Like kubeadm clusters: nodeipam gives every Node a spec.podCIDR, from which the kubelets take pod IPs.
        '--allocate-node-cidrs=true',
        '--cluster-cidr=10.200.0.0/16',
        ...v,
      ], p, '/healthz'),
    );
  }
  const schedulers: ComponentSpec[] = [];
  for (let i = 0; i < wanted('scheduler', o.schedulers); i++) {
    const p = await pickPort(taken, pref(10259, 100 * i));
    schedulers.push(
      node('scheduler', `scheduler-${i}`, [
        `--master=${master}`,
        `--hostname-override=scheduler-${i}`,
        `--secure-port=${p}`,
        ...leaderFlags,
        ...v,
      ], p, '/healthz'),
    );
  }
  const workers: ComponentSpec[] = [];
  for (let i = 0; i < wanted('worker', o.workers); i++) {
    const p = await pickPort(taken, pref(10250, 100 * i));
    workers.push(
      node('worker', `worker-${i}`, [
        `--master=${master}`,
        `--hostname-override=worker-${i}`,
        `--secure-port=${p}`,
        `--node-status-update-frequency=${formatDuration(o.nodeStatusUpdateFrequencyMs)}`,
        `--node-lease-duration-seconds=${o.nodeLeaseDurationSeconds}`,
        `--max-pods=${o.maxPods}`,
        `--image-pull-delay=${formatDuration(o.imagePullDelayMs)}`,
        ...v,
      ], p, '/healthz'),
    );
  }
  return { apiservers, controllerManagers, schedulers, workers, missing };
}

// Test helper: one kube-apiserver on a fresh SQLite file plus kube-controller-manager processes against it,
// all on free ports, with short leader-election durations; a REST client for the test itself; pod
// tracking from a watch; and a stand-in for kubelets that marks pods Ready.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { R, formatTime, type Lease, type Pod } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { SHORT_LEASE, leaderLease, leaseHolderName, newLeaseHolderName, startSingleApiserver, type SingleApiserver } from '../support/single-apiserver.ts';

const run = promisify(execFile);

export { SHORT_LEASE };

export interface Env extends Omit<SingleApiserver, 'stop'> {
  managers: Map<string, Proc>;
  startManager(name: string, extra?: string[]): Promise<Proc>;
  kubectl(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const base = await startSingleApiserver({ prefix: 'kemu-kcm-', namespace: 'default', qps: 500, burst: 1000 });
  const stopBase = base.stop;
  const managers = new Map<string, Proc>();
  // The same object, so restartApiserver's new process shows in env.apiserver.
  return Object.assign(base, {
    managers,
    async startManager(name: string, extra = SHORT_LEASE) {
      const p = startProcess(name, BIN.controllerManager, [`--kubeconfig=${base.kubeconfig}`, '--secure-port=0', `--hostname-override=${name}`, ...extra]);
      managers.set(name, p);
      return p;
    },
    async kubectl(...args: string[]) {
      const { stdout } = await run('kubectl', [`--kubeconfig=${base.kubeconfig}`, ...args], { timeout: 60_000 });
      return stdout;
    },
    stop: () => stopBase(managers.values()),
  });
}

/** The controller-manager Lease as it is now (undefined before the first leader). */
export function lease(client: RestClient): Promise<Lease | undefined> {
  return leaderLease(client, 'kube-controller-manager');
}

/** "<hostname-override>" part of the holder identity ("name_uuid"), or "" when released. */
export function holderName(client: RestClient): Promise<string> {
  return leaseHolderName(client, 'kube-controller-manager');
}

/** The holder's name once it is someone other than old (a hand-over), else undefined. */
export function newHolderName(client: RestClient, old: string): Promise<string | undefined> {
  return newLeaseHolderName(client, 'kube-controller-manager', old);
}

/** Watches pods in a namespace, keeping the live set; optionally marks each new pod Ready (no kubelets here). */
export class PodTracker {
  readonly live = new Map<string, Pod>();
  private readonly ctrl = new AbortController();
  private readonly watchers: ((t: PodTracker) => void)[] = [];
  done: Promise<void>;

  constructor(
    private readonly client: RestClient,
    private readonly namespace: string,
    private readonly markReady: boolean,
  ) {
    this.done = this.loop();
  }

  onChange(fn: (t: PodTracker) => void): void {
    this.watchers.push(fn);
  }

  /** Pods that are not being deleted, optionally only those whose name starts with prefix. */
  active(prefix = ''): Pod[] {
    return [...this.live.values()].filter((p) => !p.metadata.deletionTimestamp && (p.metadata.name ?? '').startsWith(prefix));
  }

  private async loop(): Promise<void> {
    let rv = '';
    while (!this.ctrl.signal.aborted) {
      try {
        if (!rv) {
          const list = await this.client.list<Pod>(R.pods, this.namespace);
          this.live.clear();
          for (const p of list.items) this.seen(p);
          rv = list.metadata.resourceVersion ?? '';
        }
        for await (const ev of this.client.watch<Pod>(R.pods, this.namespace, { resourceVersion: rv, allowWatchBookmarks: true, signal: this.ctrl.signal })) {
          rv = ev.object.metadata.resourceVersion ?? rv;
          if (ev.type === 'BOOKMARK') continue;
          if (ev.type === 'DELETED') this.live.delete(ev.object.metadata.name ?? '');
          else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.seen(ev.object);
          for (const w of this.watchers) w(this);
        }
      } catch (e) {
        if (this.ctrl.signal.aborted) return;
        if ((e as { code?: number }).code === 410) rv = '';
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private seen(p: Pod): void {
    this.live.set(p.metadata.name ?? '', p);
    const ready = p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (this.markReady && !ready && !p.metadata.deletionTimestamp) void this.markPodReady(p.metadata.name ?? '');
  }

  /** Like a kubelet reporting readiness: retried until it lands (the apiserver may be restarting). */
  private async markPodReady(name: string): Promise<void> {
    const patch = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(Date.now()) }] } };
    for (let attempt = 0; attempt < 100 && !this.ctrl.signal.aborted; attempt++) {
      try {
        await this.client.patch(R.pods, this.namespace, name, patch, 'merge', { subresource: 'status' });
        return;
      } catch (e) {
        if ((e as { code?: number }).code === 404) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  stop(): void {
    this.ctrl.abort();
  }
}

export { waitFor };

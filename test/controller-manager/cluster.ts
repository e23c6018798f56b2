// Test helper: one kube-apiserver on a fresh SQLite file plus kube-controller-manager processes against it,
// all on free ports, with short leader-election durations; a REST client for the test itself; pod
// tracking from a watch; and a stand-in for kubelets that marks pods Ready.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { R, formatTime, type Lease, type Pod } from '@kemu/api';
import { RestClient } from '@kemu/client';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';

const run = promisify(execFile);

export const SHORT_LEASE = ['--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period=500ms'];

export interface Env {
  dir: string;
  url: string;
  kubeconfig: string;
  client: RestClient;
  apiserver: Proc;
  managers: Map<string, Proc>;
  /** SIGKILLs the apiserver and starts it again on the same port and data (waits until ready). */
  restartApiserver(): Promise<void>;
  startManager(name: string, extra?: string[]): Promise<Proc>;
  kubectl(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kemu-kcm-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const apiserverArgs = ['--bind-address=127.0.0.1', `--secure-port=${port}`, `--datastore-endpoint=sqlite://${path.join(dir, 'state.db')}`];
  const client = new RestClient({ server: url, qps: 500, burst: 1000 });
  const startApiserver = async (): Promise<Proc> => {
    const p = startProcess('kube-apiserver', BIN.apiserver, apiserverArgs);
    await waitFor(
      'kube-apiserver ready',
      async () => {
        if (p.child.exitCode !== null) throw new Error(`kube-apiserver exited: ${p.output()}`);
        return (await client.raw('GET', '/readyz')).status === 200;
      },
      30_000,
    );
    return p;
  };
  const apiserver = await startApiserver();
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: kemu, cluster: {server: "${url}"}}]`,
      'contexts: [{name: kemu, context: {cluster: kemu, namespace: default}}]',
      'current-context: kemu',
      '',
    ].join('\n'),
  );
  const managers = new Map<string, Proc>();
  const env: Env = {
    dir,
    url,
    kubeconfig,
    client,
    apiserver,
    managers,
    async restartApiserver() {
      await env.apiserver.kill('SIGKILL');
      env.apiserver = await startApiserver();
    },
    async startManager(name, extra = SHORT_LEASE) {
      const p = startProcess(name, BIN.controllerManager, [`--kubeconfig=${kubeconfig}`, '--secure-port=0', `--hostname-override=${name}`, ...extra]);
      managers.set(name, p);
      return p;
    },
    async kubectl(...args) {
      const { stdout } = await run('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { timeout: 60_000 });
      return stdout;
    },
    async stop() {
      await Promise.all([...managers.values()].map((p) => p.kill('SIGKILL')));
      await env.apiserver.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return env;
}

/** The controller-manager Lease as it is now (undefined before the first leader). */
export async function lease(client: RestClient): Promise<Lease | undefined> {
  try {
    return await client.get<Lease>(R.leases, 'kube-system', 'kube-controller-manager');
  } catch {
    return undefined;
  }
}

/** "<hostname-override>" part of the holder identity ("name_uuid"), or "" when released. */
export async function holderName(client: RestClient): Promise<string> {
  const id = (await lease(client))?.spec?.holderIdentity ?? '';
  return id.split('_')[0] ?? '';
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

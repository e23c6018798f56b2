// Test helper: N kube-apiserver replicas as real processes on one fresh SQLite file, on free ports.
import type { Proc } from '@kemu/base/testing/processes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { startApiserver } from '../support/apiserver.ts';
import { writeKubeconfig } from '../support/kubeconfig.ts';

export interface Replica {
  proc: Proc;
  port: number;
  url: string;
  id: string;
}

export interface Cluster {
  dir: string;
  db: string;
  replicas: Replica[];
  stop(): Promise<void>;
  kubeconfig(replica?: Replica): string;
}

export async function startReplica(db: string, id: string, extra: string[] = [], scheme: 'http' | 'https' = 'http'): Promise<Replica> {
  const { proc, port, url } = await startApiserver(id, db, { extra: [`--hostname-override=${id}`, ...extra], scheme });
  return { proc, port, url, id };
}

export async function startCluster(n: number, extra: string[] = []): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kemu-apiserver-'));
  const db = path.join(dir, 'state.db');
  const started = Array.from({ length: n }, (_, i) => startReplica(db, `apiserver-${i}`, extra));
  const settled = await Promise.allSettled(started);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    // Do not leave the replicas that did come up running.
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.proc.kill('SIGKILL') : undefined)));
    rmSync(dir, { recursive: true, force: true });
    throw failed.reason;
  }
  const replicas = settled.map((s) => (s as PromiseFulfilledResult<Replica>).value);
  return {
    dir,
    db,
    replicas,
    async stop() {
      await Promise.all(replicas.map((r) => r.proc.kill('SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
    kubeconfig(replica = replicas[0] as Replica) {
      return writeKubeconfig(path.join(dir, `kubeconfig-${replica.id}`), replica.url, { insecure: true, namespace: 'default', token: 'test' });
    },
  };
}

/** A loosely typed API object for assertions. */
export interface Obj {
  kind?: string;
  apiVersion?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; [k: string]: unknown };
  items?: Obj[];
  [k: string]: unknown;
}

export async function api(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Obj; text: string }> {
  const r = await request(url, {
    method: method as 'GET',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await r.body.text();
  let parsed: Obj = { metadata: {} };
  try {
    parsed = JSON.parse(text) as Obj;
  } catch {
    // text/plain replies: see .text
  }
  return { status: r.statusCode, body: parsed, text };
}

/** Reads watch events from a streaming response until `stop` is true. */
export async function readWatch(url: string, stop: (evs: { type: string; object: Obj }[]) => boolean, timeoutMs = 20_000): Promise<{ type: string; object: Obj }[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const events: { type: string; object: Obj }[] = [];
  try {
    const res = await request(url, { signal: ac.signal });
    let buf = '';
    for await (const chunk of res.body) {
      buf += (chunk as Buffer).toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buf.slice(0, nl)) as { type: string; object: Obj });
        buf = buf.slice(nl + 1);
      }
      if (stop(events)) break;
    }
    res.body.destroy();
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

// Test helper: one kube-apiserver process on a fresh SQLite file in a temp dir, a kubeconfig for the
// components started beside it, and a REST client for the test; the base of the per-component fixtures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { R, type Lease } from '@kemu/api';
import { RestClient } from '@kemu/client';
import type { Proc } from '@kemu/base/testing/processes';
import { startApiserver } from './apiserver.ts';
import { writeKubeconfig } from './kubeconfig.ts';

/** Leader election fast enough for a test: a lost leader is replaced within seconds. */
export const SHORT_LEASE = ['--leader-elect-lease-duration=2s', '--leader-elect-renew-deadline=1500ms', '--leader-elect-retry-period=500ms'];

export interface SingleApiserver {
  dir: string;
  url: string;
  kubeconfig: string;
  client: RestClient;
  apiserver: Proc;
  /** SIGKILLs the apiserver and starts it again on the same port and data (waits until ready). */
  restartApiserver(): Promise<void>;
  /** SIGKILLs the given processes, then the apiserver, and removes the dir. */
  stop(components: Iterable<Proc>): Promise<void>;
}

export interface SingleApiserverOptions {
  /** Prefix of the temp dir's name. */
  prefix: string;
  /** The kubeconfig context's namespace; none by default. */
  namespace?: string;
  /** The test client's rate limit. */
  qps: number;
  burst: number;
}

export async function startSingleApiserver(o: SingleApiserverOptions): Promise<SingleApiserver> {
  const dir = mkdtempSync(path.join(tmpdir(), o.prefix));
  const db = path.join(dir, 'state.db');
  const first = await startApiserver('kube-apiserver', db);
  const { url, port } = first;
  const kubeconfig = writeKubeconfig(path.join(dir, 'kubeconfig'), url, o.namespace === undefined ? {} : { namespace: o.namespace });
  const env: SingleApiserver = {
    dir,
    url,
    kubeconfig,
    client: new RestClient({ server: url, qps: o.qps, burst: o.burst }),
    apiserver: first.proc,
    async restartApiserver() {
      await env.apiserver.kill('SIGKILL');
      env.apiserver = (await startApiserver('kube-apiserver', db, { port })).proc;
    },
    async stop(components) {
      await Promise.all([...components].map((p) => p.kill('SIGKILL')));
      await env.apiserver.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return env;
}

/** The "<hostname-override>" part of a leader Lease's holder ("name_uuid"); "" when released or not there. */
export async function leaseHolderName(client: RestClient, name: string): Promise<string> {
  const id = (await leaderLease(client, name))?.spec?.holderIdentity ?? '';
  return id.split('_')[0] ?? '';
}

/** The holder's name once it is someone other than old, else undefined: a condition to wait for a hand-over on. */
export async function newLeaseHolderName(client: RestClient, name: string, old: string): Promise<string | undefined> {
  const h = await leaseHolderName(client, name);
  return h && h !== old ? h : undefined;
}

/** A kube-system leader Lease as it is now (undefined before the first leader). */
export async function leaderLease(client: RestClient, name: string): Promise<Lease | undefined> {
  try {
    return await client.get<Lease>(R.leases, 'kube-system', name);
  } catch {
    return undefined;
  }
}

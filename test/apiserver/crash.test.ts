// SIGKILL a replica in the middle of a write load: every write that got a 2xx is in the store
// afterwards (read through a surviving replica), and the SQLite file passes PRAGMA integrity_check.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startCluster, type Cluster, type Replica } from './cluster.ts';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster(3);
}, 60_000);
afterAll(async () => cluster?.stop());

describe('crash safety', () => {
  it('keeps every acknowledged write when a replica is SIGKILLed mid-load', async () => {
    const [A, B, C] = cluster.replicas as [Replica, Replica, Replica];
    const acked: string[] = [];
    let stop = false;
    const writer = async (r: Replica, k: number) => {
      for (let i = 0; !stop; i++) {
        const name = `crash-${k}-${i}`;
        try {
          const res = await api(`${r.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name }, data: { i: String(i) } });
          if (res.status === 201) acked.push(name);
        } catch {
          if (r === A) return; // the killed replica's connections fail
        }
      }
    };
    const writers = [writer(A, 0), writer(A, 1), writer(B, 2), writer(C, 3)];
    while (acked.length < 200) await new Promise((r) => setTimeout(r, 10));
    await A.proc.kill('SIGKILL');
    const atKill = acked.length;
    while (acked.length < atKill + 100) await new Promise((r) => setTimeout(r, 10));
    stop = true;
    await Promise.all(writers);
    const list = await api(`${B.url}/api/v1/namespaces/default/configmaps`, 'GET');
    const names = new Set(list.body.items?.map((i) => i.metadata.name));
    const missing = acked.filter((n) => !names.has(n));
    expect(missing).toEqual([]);
    await Promise.all(cluster.replicas.map((r) => r.proc.kill('SIGKILL')));
    const db = new Database(cluster.db, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});

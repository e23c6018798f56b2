// --etcd-compaction-interval, --storage-compaction-retention and --storage-compaction-min-revisions reach the
// SQLite store: a replica started with a tiny window compacts its history but keeps the last N revisions.
import { SqliteBackend } from '@kemu/store';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, startReplica, type Replica } from './cluster.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kemu-compaction-'));
const db = path.join(dir, 'state.db');
let replica: Replica | undefined;
afterAll(async () => {
  await replica?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('storage compaction flags', () => {
  it('compacts on the flag interval past the retention window and keeps the minimum revisions', async () => {
    replica = await startReplica(db, 'apiserver-compact', ['--etcd-compaction-interval=50ms', '--storage-compaction-retention=1ms', '--storage-compaction-min-revisions=7']);
    for (let i = 0; i < 30; i++) {
      const r = await api(`${replica.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: `cm-${i}` }, data: { i: String(i) } });
      expect(r.status).toBe(201);
    }
    const head = Number((await api(`${replica.url}/api/v1/namespaces/default/configmaps`, 'GET')).body.metadata.resourceVersion);
    const store = new SqliteBackend({ path: db, compactIntervalMs: 0 });
    try {
      let compacted = 0;
      await waitFor('compaction', async () => (compacted = await store.compactRevision()) >= head - 7 - 5, 20_000);
      expect(compacted).toBeLessThanOrEqual(head - 7);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('refuses a negative minimum', async () => {
    const p = startProcess('apiserver-bad', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--datastore-endpoint=sqlite://${path.join(dir, 'bad.db')}`, '--storage-compaction-min-revisions=-1']);
    try {
      await waitFor('exit', async () => p.child.exitCode !== null, 20_000);
      expect(p.child.exitCode).toBe(2);
      expect(p.output()).toContain('--storage-compaction-min-revisions must not be negative');
    } finally {
      await p.kill('SIGKILL');
    }
  }, 30_000);
});

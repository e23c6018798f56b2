import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackendConformance } from '../conformance.ts';
import { etcdMissing, opensslMissing, startEtcd, type TestEtcd } from '../testing/etcd-server.ts';
import { EtcdBackend } from './backend.ts';
import { parseEtcdServers } from './client.ts';

const missing = etcdMissing();
let etcd: TestEtcd | undefined;
let n = 0;

if (missing) {
  describe.skip(`EtcdBackend (skipped: ${missing})`, () => {
    it('needs etcd', () => {});
  });
} else {
  beforeAll(async () => {
    etcd = await startEtcd();
  }, 30_000);
  afterAll(async () => {
    await etcd?.stop();
  });

  // One etcd for the file; each backend gets its own --etcd-prefix, so keys never meet. Revisions and
  // compaction are etcd-wide, which the suite allows (it compares revisions relative to the head).
  runBackendConformance('EtcdBackend', () =>
    new EtcdBackend({ servers: parseEtcdServers((etcd as TestEtcd).url), prefix: `/kemu-conformance/${n++}`, compactIntervalMs: 0 }),
  );
}

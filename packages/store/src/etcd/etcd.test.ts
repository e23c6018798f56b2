import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompactedError, StoreUnavailableError } from '../backend.ts';
import { runBackendConformance } from '../conformance.ts';
import { openBackend } from '../index.ts';
import { freePort } from '@kemu/base/testing/ports';
import { etcdMissing, opensslMissing, startEtcd, type TestEtcd } from '../testing/etcd-server.ts';
import { EtcdBackend, type EtcdOptions } from './backend.ts';
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

const etcdctlMissing = spawnSync('etcdctl', ['version']).status === 0 ? undefined : 'etcdctl not installed (apt-get install etcd-client)';

function etcdctl(url: string, ...args: string[]): string {
  const r = spawnSync('etcdctl', ['--endpoints', url, ...args], { encoding: 'utf8', env: { ...process.env, ETCDCTL_API: '3' } });
  if (r.status !== 0) throw new Error(`etcdctl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe.skipIf(missing)('EtcdBackend on etcd', () => {
  const open = (extra: Partial<EtcdOptions> = {}): EtcdBackend =>
    new EtcdBackend({ servers: parseEtcdServers((etcd as TestEtcd).url), compactIntervalMs: 0, ...extra });

  it.skipIf(etcdctlMissing)('stores objects at Kubernetes\' keys under --etcd-prefix, JSON values, resourceVersion = etcd revision', async () => {
    const url = (etcd as TestEtcd).url;
    const def = open();
    const other = open({ prefix: '/kemu-layout' });
    try {
      const kv = await def.create('/registry/pods/default/web', '{"kind":"Pod"}');
      await other.create('/registry/pods/default/web', '{"kind":"Pod"}');
      expect(etcdctl(url, 'get', '/registry/pods', '--prefix', '--keys-only').trim()).toBe('/registry/pods/default/web');
      expect(etcdctl(url, 'get', '/kemu-layout/pods', '--prefix', '--keys-only').trim()).toBe('/kemu-layout/pods/default/web');
      expect(etcdctl(url, 'get', '/registry/pods/default/web', '--print-value-only').trim()).toBe('{"kind":"Pod"}');
      const json = JSON.parse(etcdctl(url, 'get', '/registry/pods/default/web', '-w', 'json')) as { kvs: { mod_revision: number }[] };
      expect(json.kvs[0]?.mod_revision).toBe(kv.modRevision);
      await def.delete('/registry/pods/default/web');
    } finally {
      await def.close();
      await other.close();
    }
  });

  it.skipIf(etcdctlMissing)('finds a compaction made by someone else (another apiserver, etcdctl) and answers old revisions with CompactedError', async () => {
    const b = open({ prefix: '/kemu-compact' });
    try {
      for (let i = 0; i < 20; i++) await b.create(`/registry/c/k${i}`, String(i));
      const head = await b.currentRevision();
      etcdctl((etcd as TestEtcd).url, 'compact', String(head - 7));
      expect(await b.compactRevision()).toBe(head - 7);
      const err = await b.list('/registry/c/', { revision: head - 10 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CompactedError);
      expect((err as CompactedError).compacted).toBe(head - 7);
    } finally {
      await b.close();
    }
  });

  it('times compaction by --etcd-compaction-interval: each run compacts to the revision the previous one saw', async () => {
    const b = open({ prefix: '/kemu-timed', compactIntervalMs: 100 });
    try {
      await b.create('/registry/t/a', '0');
      const seen = await b.currentRevision();
      await expect.poll(() => b.compactRevision(), { timeout: 5000, interval: 50 }).toBeGreaterThanOrEqual(seen);
      expect((await b.get('/registry/t/a'))?.value).toBe('0');
    } finally {
      await b.close();
    }
  });

  it('reports each --etcd-servers member; an unreachable one is unhealthy while reads go to the reachable one', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const b = new EtcdBackend({ servers: parseEtcdServers(`${dead},${(etcd as TestEtcd).url}`), prefix: '/kemu-members', compactIntervalMs: 0, healthCheckTimeoutMs: 1000 });
    try {
      expect(await b.count('/registry/')).toBe(0); // fails over from the dead member
      const members = await b.memberHealth();
      expect(members.map((m) => [m.server, m.healthy])).toEqual([
        [dead, false],
        [(etcd as TestEtcd).url, true],
      ]);
      expect(members[0]?.error).toBeTruthy();
      expect(await b.healthy()).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('openBackend selects etcd with the --etcd-* options', async () => {
    const b = await openBackend('', { etcd: { servers: (etcd as TestEtcd).url, prefix: '/kemu-open' }, compactIntervalMs: 0 });
    try {
      expect(b).toBeInstanceOf(EtcdBackend);
      expect(await b.healthy()).toBe(true);
    } finally {
      await b.close();
    }
  });
});

describe.skipIf(missing || opensslMissing())('EtcdBackend over TLS (client certificates required)', () => {
  let secure: TestEtcd | undefined;
  beforeAll(async () => {
    secure = await startEtcd({ tls: true });
  }, 30_000);
  afterAll(async () => {
    await secure?.stop();
  });

  it('works with --etcd-cafile/--etcd-certfile/--etcd-keyfile and is unhealthy without a client certificate', async () => {
    const s = secure as TestEtcd;
    const tls = s.tls as NonNullable<TestEtcd['tls']>;
    const b = new EtcdBackend({ servers: parseEtcdServers(s.url), ...tls, compactIntervalMs: 0 });
    const anonymous = new EtcdBackend({ servers: parseEtcdServers(s.url), caFile: tls.caFile, compactIntervalMs: 0, healthCheckTimeoutMs: 1000 });
    try {
      const kv = await b.create('/registry/pods/default/tls', 'x');
      expect(await b.get('/registry/pods/default/tls')).toEqual(kv);
      expect(await b.healthy()).toBe(true);
      expect(await anonymous.healthy()).toBe(false);
    } finally {
      await b.close();
      await anonymous.close();
    }
  });
});

describe.skipIf(missing)('EtcdBackend while etcd restarts', () => {
  let own: TestEtcd | undefined;
  beforeAll(async () => {
    own = await startEtcd();
  }, 30_000);
  afterAll(async () => {
    await own?.stop();
  });

  it('is unhealthy and refuses writes with StoreUnavailableError while etcd is down; its watch resumes without gap or duplicate', async () => {
    const e = own as TestEtcd;
    const b = new EtcdBackend({ servers: parseEtcdServers(e.url), compactIntervalMs: 0, healthCheckTimeoutMs: 500 });
    const events: number[] = [];
    const errors: Error[] = [];
    try {
      const from = await b.currentRevision();
      const w = b.watch('/registry/', from, { onEvents: (evs) => events.push(...evs.map((x) => x.revision)), onError: (err) => errors.push(err) });
      const before = await Promise.all(Array.from({ length: 5 }, (_, i) => b.create(`/registry/r/a${i}`, String(i))));
      await expect.poll(() => events.length, { timeout: 5000 }).toBe(5);

      await e.kill();
      expect(await b.healthy()).toBe(false);
      const refused = await b.create('/registry/r/down', 'x').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(StoreUnavailableError);

      await e.start();
      await expect.poll(() => b.healthy(), { timeout: 10_000, interval: 100 }).toBe(true);
      const after = await Promise.all(Array.from({ length: 5 }, (_, i) => b.create(`/registry/r/b${i}`, String(i))));
      const last = Math.max(...after.map((kv) => kv.modRevision));
      await expect.poll(() => events[events.length - 1], { timeout: 10_000 }).toBe(last);
      const all = [...before, ...after].map((kv) => kv.modRevision).sort((x, y) => x - y);
      expect(events).toEqual(all);
      expect(errors).toEqual([]);
      w.close();
    } finally {
      await b.close();
    }
  }, 40_000);
});

describe.skipIf(missing)('EtcdBackend with members gone', () => {
  it('sends every write to the member that is up, however many calls and watches notice the others are gone at once', async () => {
    const dead = await Promise.all([freePort(), freePort()]);
    const servers = parseEtcdServers([...dead.map((p) => `http://127.0.0.1:${p}`), (etcd as TestEtcd).url].join(','));
    const b = new EtcdBackend({ servers, prefix: '/kemu-failover', compactIntervalMs: 0 });
    try {
      // Watches opened on the first (gone) member fail over as the writes do, all at the same moment.
      const watches = Array.from({ length: 4 }, () => b.watch('/registry/', 0, { onEvents: () => {}, onError: () => {} }));
      const writes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => b.create(`/registry/r/f${i}`, String(i))));
      expect(writes.filter((w) => w.status === 'rejected').map((w) => String((w as PromiseRejectedResult).reason))).toEqual([]);
      for (const w of watches) w.close();
    } finally {
      await b.close();
    }
  });
});

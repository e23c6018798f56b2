// The one conformance suite every Backend passes (run by memory.test.ts and sqlite.test.ts).
// It asserts what a caller of the contract observes, never how a backend does it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Backend,
  type KeyValue,
} from './backend.ts';
import { EventCollector } from './testing/collector.ts';

export type BackendFactory = () => Promise<Backend> | Backend;

const P = '/registry/pods/';

export function runBackendConformance(name: string, factory: BackendFactory): void {
  describe(`${name}: Backend conformance`, () => {
    let b: Backend;
    const collectors: EventCollector[] = [];
    const watch = (prefix: string, from: number): EventCollector => {
      const c = EventCollector.start(b, prefix, from);
      collectors.push(c);
      return c;
    };

    beforeEach(async () => {
      b = await factory();
    });
    afterEach(async () => {
      for (const c of collectors.splice(0)) c.close();
      await b.close();
    });

    describe('create/get/update/delete', () => {
      it('creates and reads back a key with its revisions', async () => {
        const before = await b.currentRevision();
        const kv = await b.create(`${P}default/a`, '{"v":1}');
        expect(kv).toEqual({ key: `${P}default/a`, value: '{"v":1}', modRevision: before + 1, createRevision: before + 1 });
        expect(await b.get(`${P}default/a`)).toEqual(kv);
        expect(await b.currentRevision()).toBe(before + 1);
        expect(await b.get(`${P}default/missing`)).toBeUndefined();
      });

      it('refuses to create an existing key with KeyExistsError', async () => {
        await b.create(`${P}default/a`, '1');
        await expect(b.create(`${P}default/a`, '2')).rejects.toBeInstanceOf(KeyExistsError);
        expect((await b.get(`${P}default/a`))?.value).toBe('1');
      });

      it('updates keep createRevision and take a new modRevision', async () => {
        const c = await b.create(`${P}default/a`, '1');
        const u = await b.update(`${P}default/a`, '2', c.modRevision);
        expect(u.createRevision).toBe(c.createRevision);
        expect(u.modRevision).toBe(c.modRevision + 1);
        const u2 = await b.update(`${P}default/a`, '3');
        expect(u2.modRevision).toBe(u.modRevision + 1);
        expect(await b.get(`${P}default/a`)).toEqual(u2);
      });

      it('update with a stale expected revision fails with RevisionMismatchError carrying the current value', async () => {
        const c = await b.create(`${P}default/a`, '1');
        const u = await b.update(`${P}default/a`, '2', c.modRevision);
        const err = await b.update(`${P}default/a`, '3', c.modRevision).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RevisionMismatchError);
        expect((err as RevisionMismatchError).current).toEqual(u);
        expect((err as RevisionMismatchError).expected).toBe(c.modRevision);
        expect((await b.get(`${P}default/a`))?.value).toBe('2');
      });

      it('update and delete of a missing key fail with KeyNotFoundError', async () => {
        await expect(b.update(`${P}default/nope`, '1')).rejects.toBeInstanceOf(KeyNotFoundError);
        await expect(b.delete(`${P}default/nope`)).rejects.toBeInstanceOf(KeyNotFoundError);
      });

      it('delete returns the last value at the delete revision; the key can be created again', async () => {
        const c = await b.create(`${P}default/a`, 'v1');
        await expect(b.delete(`${P}default/a`, c.modRevision + 5)).rejects.toBeInstanceOf(RevisionMismatchError);
        const d = await b.delete(`${P}default/a`, c.modRevision);
        expect(d).toEqual({ key: `${P}default/a`, value: 'v1', modRevision: c.modRevision + 1, createRevision: c.createRevision });
        expect(await b.get(`${P}default/a`)).toBeUndefined();
        await expect(b.update(`${P}default/a`, 'x')).rejects.toBeInstanceOf(KeyNotFoundError);
        const again = await b.create(`${P}default/a`, 'v2');
        expect(again.createRevision).toBe(d.modRevision + 1);
      });

      it('rejects empty keys and keys containing NUL', async () => {
        await expect(b.create('', 'x')).rejects.toBeInstanceOf(TypeError);
        await expect(b.create('/registry/a\u0000b', 'x')).rejects.toBeInstanceOf(TypeError);
      });

      it('concurrent writes get distinct, strictly increasing, global revisions; preconditions hold under concurrency', async () => {
        const start = await b.currentRevision();
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => b.create(`/registry/k${i % 5}/x${i}`, String(i))));
        const revs = results.map((r) => r.modRevision).sort((x, y) => x - y);
        expect(revs).toEqual(Array.from({ length: 50 }, (_, i) => start + 1 + i));
        // Ten racing updates with the same expected revision: exactly one wins.
        const base = await b.create(`${P}default/race`, '0');
        const race = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => b.update(`${P}default/race`, String(i), base.modRevision)));
        expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of race) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RevisionMismatchError);
        // Racing creates of one key: exactly one wins.
        const creates = await Promise.allSettled(Array.from({ length: 5 }, () => b.create(`${P}default/once`, 'x')));
        expect(creates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      });
    });

    describe('list', () => {
      it('lists by prefix in key order with count', async () => {
        await b.create(`${P}ns1/b`, 'b');
        await b.create(`${P}ns1/a`, 'a');
        await b.create(`${P}ns2/c`, 'c');
        await b.create('/registry/services/ns1/s', 's');
        await b.create(`${P}ns10/z`, 'z');
        const all = await b.list(P);
        expect(all.items.map((i) => i.key)).toEqual([`${P}ns1/a`, `${P}ns1/b`, `${P}ns10/z`, `${P}ns2/c`]);
        expect(all.more).toBe(false);
        expect(all.revision).toBe(await b.currentRevision());
        expect((await b.list(`${P}ns1/`)).items.map((i) => i.value)).toEqual(['a', 'b']);
        expect(await b.count(P)).toBe(4);
        expect(await b.count(`${P}ns1/`)).toBe(2);
        await b.delete(`${P}ns1/a`);
        expect(await b.count(`${P}ns1/`)).toBe(1);
        expect((await b.list(`${P}ns1/`)).items.map((i) => i.key)).toEqual([`${P}ns1/b`]);
      });

      it('pages with limit and startAfter, consistent at the first page revision despite writes between pages', async () => {
        for (let i = 0; i < 10; i++) await b.create(`${P}default/p${i}`, `v${i}`);
        const first = await b.list(P, { limit: 4 });
        expect(first.items.map((i) => i.key)).toEqual([0, 1, 2, 3].map((i) => `${P}default/p${i}`));
        expect(first.more).toBe(true);
        expect(first.remaining).toBe(6);
        const rev = first.revision;

        // Writes after the first page: update, delete, create (before and after the cursor).
        await b.update(`${P}default/p5`, 'changed');
        await b.delete(`${P}default/p6`);
        await b.create(`${P}default/p45`, 'new');
        await b.create(`${P}default/p00`, 'new-before-cursor');
        await b.delete(`${P}default/p7`);
        await b.create(`${P}default/p7`, 'recreated');

        const pages: KeyValue[][] = [first.items];
        let last = first;
        while (last.more) {
          const lastKey = (last.items[last.items.length - 1] as KeyValue).key;
          last = await b.list(P, { limit: 4, startAfter: lastKey, revision: rev });
          expect(last.revision).toBe(rev);
          pages.push(last.items);
        }
        const seen = pages.flat();
        expect(seen.map((i) => `${i.key}=${i.value}`)).toEqual(
          Array.from({ length: 10 }, (_, i) => `${P}default/p${i}=v${i}`),
        );
        expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);

        // The current state shows the writes.
        const now = await b.list(P);
        expect(now.items.map((i) => `${i.key.slice(P.length)}=${i.value}`)).toEqual([
          'default/p0=v0', 'default/p00=new-before-cursor', 'default/p1=v1', 'default/p2=v2', 'default/p3=v3',
          'default/p4=v4', 'default/p45=new', 'default/p5=changed', 'default/p7=recreated', 'default/p8=v8', 'default/p9=v9',
        ]);
      });

      it('a list at a past revision shows the values and revisions of that time', async () => {
        const a1 = await b.create(`${P}x/a`, '1');
        const rev = await b.currentRevision();
        await b.update(`${P}x/a`, '2');
        await b.create(`${P}x/b`, '1');
        const past = await b.list(P, { revision: rev });
        expect(past.items).toEqual([a1]);
        expect(past.revision).toBe(rev);
      });

      it('rejects a future revision', async () => {
        await b.create(`${P}x/a`, '1');
        const head = await b.currentRevision();
        await expect(b.list(P, { revision: head + 100 })).rejects.toBeInstanceOf(FutureRevisionError);
      });
    });

    describe('watch', () => {
      it('delivers creates, updates and deletes in order with prevKv, only for the prefix', async () => {
        const from = await b.currentRevision();
        const w = watch(`${P}default/`, from);
        const c = await b.create(`${P}default/a`, '1');
        await b.create('/registry/services/default/s', 'other');
        const u = await b.update(`${P}default/a`, '2');
        const d = await b.delete(`${P}default/a`);
        await w.count(3);
        expect(w.events.map((e) => e.type)).toEqual(['create', 'update', 'delete']);
        expect(w.events.map((e) => e.revision)).toEqual([c.modRevision, u.modRevision, d.modRevision]);
        expect(w.events[0]?.kv).toEqual(c);
        expect(w.events[0]?.prevKv).toBeUndefined();
        expect(w.events[1]?.kv).toEqual(u);
        expect(w.events[1]?.prevKv).toEqual(c);
        expect(w.events[2]?.kv).toEqual(d);
        expect(w.events[2]?.prevKv).toEqual(u);
      });

      it('delivers many concurrent writes in revision order with no gaps or duplicates', async () => {
        const from = await b.currentRevision();
        const w = watch('/registry/', from);
        const writes = await Promise.all(Array.from({ length: 300 }, (_, i) => b.create(`/registry/c/k${i}`, String(i))));
        await Promise.all(writes.slice(0, 100).map((kv) => b.update(kv.key, 'u')));
        const sentinel = await b.create('/registry/sentinel', 'end');
        await w.until((c) => c.events.some((e) => e.revision === sentinel.modRevision), 10_000, 'sentinel');
        const revs = w.events.map((e) => e.revision);
        expect(revs).toEqual(Array.from({ length: 401 }, (_, i) => from + 1 + i));
      });

      it('a watch from a past revision replays the log, then continues live without gap or duplicate', async () => {
        const from = await b.currentRevision();
        for (let i = 0; i < 20; i++) await b.create(`${P}r/k${i}`, String(i));
        await b.update(`${P}r/k3`, 'u');
        const mid = from + 10;
        const w = watch(`${P}r/`, mid);
        // Writes racing the replay.
        const live = Promise.all(Array.from({ length: 20 }, (_, i) => b.create(`${P}r/live${i}`, String(i))));
        await live;
        const end = await b.currentRevision();
        await w.until((c) => c.events.some((e) => e.revision === end), 5000, 'last live write');
        expect(w.events.map((e) => e.revision)).toEqual(Array.from({ length: end - mid }, (_, i) => mid + 1 + i));
        expect(w.events.find((e) => e.kv.key === `${P}r/k3` && e.type === 'update')?.prevKv?.value).toBe('3');
      });

      it('a watch from the current revision of a quiet store sees the next write only', async () => {
        await b.create(`${P}q/a`, '1');
        const w = watch(P, await b.currentRevision());
        const n = await b.create(`${P}q/b`, '1');
        await w.count(1);
        expect(w.events.map((e) => e.revision)).toEqual([n.modRevision]);
      });

      it('close stops delivery', async () => {
        const w = watch(P, await b.currentRevision());
        await b.create(`${P}c/a`, '1');
        await w.count(1);
        w.close();
        const other = watch(P, await b.currentRevision());
        await b.create(`${P}c/b`, '1');
        await other.count(1);
        expect(w.events).toHaveLength(1);
      });
    });

    describe('compaction', () => {
      it('keeps current values and the state at the compact revision; removes older revisions', async () => {
        const a = await b.create(`${P}k/a`, '1');
        await b.update(`${P}k/a`, '2');
        const bKv = await b.create(`${P}k/b`, '1');
        await b.delete(`${P}k/b`);
        const c = await b.create(`${P}k/c`, '1');
        const a3 = await b.update(`${P}k/a`, '3');
        const rev = await b.currentRevision();
        await b.compact(rev - 1);
        expect(await b.compactRevision()).toBe(rev - 1);
        expect(await b.get(`${P}k/a`)).toEqual(a3);
        expect(await b.get(`${P}k/b`)).toBeUndefined();
        expect(await b.get(`${P}k/c`)).toEqual(c);
        expect((await b.list(P)).items.map((i) => i.value)).toEqual(['3', '1']);
        // The state at the compact revision is still listable; before it is not.
        const atCompact = await b.list(P, { revision: rev - 1 });
        expect(atCompact.items.map((i) => `${i.key.slice(P.length)}=${i.value}`)).toEqual(['k/a=2', 'k/c=1']);
        await expect(b.list(P, { revision: a.modRevision })).rejects.toBeInstanceOf(CompactedError);
        // The deleted key can be created again after its tombstone is gone.
        const b2 = await b.create(`${P}k/b`, 'again');
        expect(b2.createRevision).toBeGreaterThan(bKv.modRevision);
        // Updates after compaction still work with preconditions.
        await expect(b.update(`${P}k/a`, '4', a.modRevision)).rejects.toBeInstanceOf(RevisionMismatchError);
        expect((await b.update(`${P}k/a`, '4', a3.modRevision)).value).toBe('4');
        expect(await b.count(P)).toBe(3);
      });

      it('a watch from a compacted revision fails with CompactedError; from the compact revision it works', async () => {
        for (let i = 0; i < 10; i++) await b.create(`${P}w/k${i}`, String(i));
        const rev = await b.currentRevision();
        await b.compact(rev - 3);
        const old = watch(P, rev - 5);
        await old.failed();
        expect(old.error).toBeInstanceOf(CompactedError);
        const ok = watch(P, rev - 3);
        await ok.count(3);
        expect(ok.events.map((e) => e.revision)).toEqual([rev - 2, rev - 1, rev]);
        expect(ok.error).toBeUndefined();
      });

      it('an ongoing watch that is past the compact revision is unaffected', async () => {
        const w = watch(P, await b.currentRevision());
        for (let i = 0; i < 5; i++) await b.create(`${P}o/k${i}`, String(i));
        await w.count(5);
        await b.compact(await b.currentRevision());
        const n = await b.create(`${P}o/after`, 'x');
        await w.until((c) => c.events.some((e) => e.revision === n.modRevision), 5000, 'post-compaction event');
        expect(w.error).toBeUndefined();
        expect(w.events).toHaveLength(6);
      });

      it('compacting again or below the current compact revision is harmless', async () => {
        await b.create(`${P}h/a`, '1');
        await b.update(`${P}h/a`, '2');
        const rev = await b.currentRevision();
        await b.compact(rev);
        await b.compact(rev - 1);
        await b.compact(rev + 100);
        expect(await b.compactRevision()).toBe(rev);
        expect((await b.get(`${P}h/a`))?.value).toBe('2');
        const n = await b.create(`${P}h/b`, '1');
        expect(n.modRevision).toBe(rev + 1);
      });
    });

    describe('health', () => {
      it('is healthy when open and writable, and checking it leaves no trace: no revision, no key, no event', async () => {
        const kv = await b.create(`${P}i/a`, '1');
        const w = watch('/', kv.modRevision);
        for (let i = 0; i < 3; i++) expect(await b.healthy()).toBe(true);
        expect(await b.currentRevision()).toBe(kv.modRevision);
        expect((await b.list('/')).items.map((i) => i.key)).toEqual([`${P}i/a`]);
        const next = await b.create(`${P}i/b`, '2');
        expect(next.modRevision).toBe(kv.modRevision + 1);
        await w.until((c) => c.events.length >= 1);
        expect(w.events.map((e) => e.kv.key)).toEqual([`${P}i/b`]);
      });

      it('is unhealthy once closed', async () => {
        await b.close();
        expect(await b.healthy()).toBe(false);
      });
    });
  });
}

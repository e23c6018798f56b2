// Store read benchmark: list 10,000 pod-sized values by prefix (all at once, and in pages of 500 at the
// first page's revision while writes continue), count and get.
// usage: npm run bench -- store-list [--pods N] (--help lists the flags)
import { join } from 'node:path';
import { SqliteBackend } from '../packages/store/src/sqlite.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const { pods } = benchFlags('store-list', { pods: { type: 'int', default: 10_000, usage: 'pod-sized values to create and list' } }, (f) => atLeast(f, 1, ['pods']));
const filler = 'x'.repeat(1800);
const time = async <T>(label: string, fn: () => Promise<T>, reps = 5): Promise<T> => {
  let out: T | undefined;
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    out = await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, c) => a - c);
  console.log('%s: median %s ms (min %s, max %s)', label.padEnd(44), ms[Math.floor(reps / 2)]?.toFixed(2), ms[0]?.toFixed(2), ms[reps - 1]?.toFixed(2));
  return out as T;
};

await runBench('store-list', async (work) => {
  const b = new SqliteBackend({ path: join(work.dir, 'state.db'), compactIntervalMs: 0 });
  work.defer(() => b.close());
  const t0 = performance.now();
  const ns = (n: number): string => `ns${n % 20}`;
  await Promise.all(
    Array.from({ length: pods }, (_, n) => b.create(`/registry/pods/${ns(n)}/pod-${n}`, JSON.stringify({ kind: 'Pod', n, filler }))),
  );
  console.log('== %d pods (~2 KB each) created in %s ms', pods, (performance.now() - t0).toFixed(0));
  await time('list /registry/pods/ (all)', () => b.list('/registry/pods/'));
  await time('list /registry/pods/ns3/ (one namespace)', () => b.list('/registry/pods/ns3/'));
  await time('count /registry/pods/', () => b.count('/registry/pods/'));
  await time('get one pod', () => b.get('/registry/pods/ns7/pod-4567'), 100);
  await time('list limit=500 first page', () => b.list('/registry/pods/', { limit: 500 }));
  // Pages at the first page's revision while 1,000 updates land in between (of every 7th pod; round again below 7,000).
  const first = await b.list('/registry/pods/', { limit: 500 });
  const updated = (n: number): number => (n * 7) % pods;
  await Promise.all(Array.from({ length: 1000 }, (_, n) => b.update(`/registry/pods/${ns(updated(n))}/pod-${updated(n)}`, '{"updated":true}')));
  const tp = performance.now();
  let page = first;
  let pages = 1;
  let items = first.items.length;
  while (page.more) {
    const last = page.items[page.items.length - 1]?.key as string;
    page = await b.list('/registry/pods/', { limit: 500, startAfter: last, revision: first.revision });
    pages++;
    items += page.items.length;
  }
  console.log('%d continue pages at an older revision (1,000 writes since): %s ms total, %d items', pages - 1, (performance.now() - tp).toFixed(1), items);
});

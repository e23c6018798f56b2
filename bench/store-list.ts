// Store read benchmark: list 10,000 pod-sized values by prefix (all at once, and in pages of 500 at the
// first page's revision while writes continue), count and get. usage: node --import tsx bench/store-list.ts [--pods N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../packages/store/src/sqlite.ts';

const i = process.argv.indexOf('--pods');
const pods = i >= 0 ? Number(process.argv[i + 1]) : 10_000;
const dir = mkdtempSync(join(tmpdir(), 'kemu-bench-list-'));
const b = new SqliteBackend({ path: join(dir, 'state.db'), compactIntervalMs: 0 });
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
try {
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
  // Pages at the first page's revision while 1,000 updates land in between.
  const first = await b.list('/registry/pods/', { limit: 500 });
  await Promise.all(Array.from({ length: 1000 }, (_, n) => b.update(`/registry/pods/${ns(n * 7)}/pod-${n * 7}`, '{"updated":true}')));
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
} finally {
  await b.close();
  rmSync(dir, { recursive: true, force: true });
}

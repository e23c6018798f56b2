// Process start-up: each binary's `--help` (which loads its whole module graph) from its esbuild bundle and from
// the TypeScript sources through tsx (KEMU_NO_BUNDLE=1), medians of --runs each; wall time, and CPU time (user +
// system) where /usr/bin/time exists. Builds the bundles first (npm run build).
// usage: npm run bench -- startup [--runs 5]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BIN } from '@kemu/base/testing/processes';
import { atLeast, benchFlags } from './lib/flags.ts';

const f = benchFlags('startup', { runs: { type: 'int', default: 5, usage: 'Runs per binary and mode' } }, (v) => atLeast(v, 1, ['runs']));
const ROOT = path.resolve(path.dirname(BIN.kemu), '../../..');
const TIME = '/usr/bin/time';
const withTime = existsSync(TIME);

const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-bins.mjs')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(1);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** One start: wall seconds, and CPU seconds (NaN without /usr/bin/time). */
function once(bin: string, sources: boolean): { wall: number; cpu: number } {
  const env = { ...process.env, KEMU_NO_BUNDLE: sources ? '1' : '0' };
  const t = performance.now();
  const r = withTime
    ? spawnSync(TIME, ['-f', '%U %S', process.execPath, bin, '--help'], { env, encoding: 'utf8' })
    : spawnSync(process.execPath, [bin, '--help'], { env, encoding: 'utf8' });
  const wall = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${bin} --help exited ${String(r.status)}: ${r.stderr.slice(-500)}`);
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [u, s] = last.split(' ').map(Number);
  return { wall, cpu: withTime ? (u ?? NaN) + (s ?? NaN) : NaN };
}

const fmt = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(2)} s`);
console.log(`binary                    bundle wall  sources wall  ratio   bundle CPU  sources CPU  ratio   (medians of ${f.runs})`);
for (const [name, bin] of Object.entries(BIN)) {
  const runs = { bundle: [] as { wall: number; cpu: number }[], sources: [] as { wall: number; cpu: number }[] };
  for (let i = 0; i < f.runs; i++) {
    runs.bundle.push(once(bin, false));
    runs.sources.push(once(bin, true));
  }
  const bw = median(runs.bundle.map((r) => r.wall));
  const sw = median(runs.sources.map((r) => r.wall));
  const bc = median(runs.bundle.map((r) => r.cpu));
  const sc = median(runs.sources.map((r) => r.cpu));
  console.log(
    `${name.padEnd(25)} ${fmt(bw).padStart(11)}  ${fmt(sw).padStart(12)}  ${(sw / bw).toFixed(2).padStart(5)}×  ${fmt(bc).padStart(10)}  ${fmt(sc).padStart(11)}  ${Number.isNaN(bc) ? '-' : `${(sc / bc).toFixed(2)}×`}`,
  );
}

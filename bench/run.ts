// Benchmark runner behind `npm run bench`:
//   npm run bench -- --list            the benchmarks, each with the first line of its header comment
//   npm run bench -- <name> [args…]    one benchmark (node --import tsx bench/<file> args…), output streamed
//   npm run bench -- all               each benchmark in turn at its defaults, then a summary
// A benchmark is a bench/*-bench.ts or bench/store-*.ts file that no other bench file spawns as a child
// (bench/store-rate-writer.ts is such a child, not a benchmark).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.dirname(fileURLToPath(import.meta.url));

interface Bench {
  name: string;
  file: string;
  about: string;
}

function benchmarks(): Bench[] {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && f !== 'run.ts').sort();
  const text = new Map(files.map((f) => [f, readFileSync(path.join(DIR, f), 'utf8')]));
  const spawned = (f: string): boolean => files.some((o) => o !== f && (text.get(o) ?? '').includes(`./${f}`));
  return files
    .filter((f) => (f.endsWith('-bench.ts') || f.startsWith('store-')) && !spawned(f))
    .map((file) => {
      return { name: file.replace(/(-bench)?\.ts$/, ''), file, about: about(text.get(file) ?? '') };
    });
}

/** The file's header comment up to its usage line, on one line, cut at ~110 characters. */
function about(src: string): string {
  const lines: string[] = [];
  for (const l of src.split('\n')) {
    const m = /^\/\/\s?(.*)$/.exec(l);
    if (!m || /^\s*(usage|run):/i.test(m[1] ?? '')) break;
    lines.push((m[1] ?? '').trim());
  }
  const s = lines.join(' ').replace(/\s+/g, ' ');
  return s.length > 110 ? `${s.slice(0, 109)}…` : s;
}

let child: ChildProcess | undefined;
let interrupted = false;
// Ctrl-C reaches the child too (same process group); SIGTERM to the runner alone is passed on by pid.
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    interrupted = true;
    if (child?.pid !== undefined && child.exitCode === null) child.kill(sig);
    else process.exit(130);
  });

function runOne(b: Bench, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', path.join(DIR, b.file), ...args], { stdio: 'inherit' });
    child = c;
    c.once('error', (e) => {
      process.stderr.write(`bench: cannot start ${b.file}: ${e.message}\n`);
      resolve(1);
    });
    c.once('exit', (code, signal) => {
      child = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const [cmd, ...rest] = process.argv.slice(2);
const all = benchmarks();
if (cmd === undefined || cmd === '--list' || cmd === '-l' || cmd === '--help' || cmd === '-h') {
  if (cmd === undefined || cmd.startsWith('--h') || cmd === '-h') console.log('usage: npm run bench -- --list | <name> [args…] | all\n');
  const w = Math.max(...all.map((b) => b.name.length));
  for (const b of all) console.log(`${b.name.padEnd(w)}  ${b.about}`);
  process.exit(0);
}
if (cmd === 'all') {
  if (rest.length) console.error('bench: "all" runs each benchmark at its defaults; arguments ignored');
  const results: { name: string; code: number; s: number }[] = [];
  for (const b of all) {
    if (interrupted) break;
    console.log(`\n=== ${b.name} (bench/${b.file}) ===`);
    const t0 = Date.now();
    const code = await runOne(b, []);
    results.push({ name: b.name, code, s: (Date.now() - t0) / 1000 });
  }
  console.log('\n=== summary ===');
  for (const r of results) console.log(`${r.name.padEnd(20)} ${r.code === 0 ? 'ok  ' : `FAIL (exit ${r.code})`} ${r.s.toFixed(1)} s`);
  process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
}
const b = all.find((x) => x.name === cmd || x.file === cmd || x.file === `${cmd}.ts`);
if (!b) {
  console.error(`bench: unknown benchmark "${cmd}"; known: ${all.map((x) => x.name).join(', ')}`);
  process.exit(2);
}
process.exit(await runOne(b, rest));

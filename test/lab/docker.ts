// Test helper: a Docker engine for the compose lab. Decides whether the Docker variant runs here (and says why
// not), uses a running engine or starts `dockerd` (as root) and stops it by pid afterwards. One lab at a time:
// a lock directory serializes the Docker test files (one engine, one /var/lib/docker, 2 cores).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './lab.ts';

export const BASE_IMAGES = ['node:20-bookworm-slim', 'haproxy:2.6'] as const;
const HOW = 'build them with npx kemu compose up (or scripts/build-base-images.sh; root, debootstrap, ~5 min), or run with KEMU_DOCKER_TESTS=1 to build everything first';

function which(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin'])) {
    const p = path.join(dir, bin);
    if (dir && fs.existsSync(p)) return p;
  }
  return undefined;
}

function engineAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Image tags present in the local store: from the engine when one answers, else from dockerd's own index file. */
function localTags(engineUp: boolean): Set<string> {
  const tags = new Set<string>();
  if (engineUp) {
    for (const img of BASE_IMAGES) {
      try {
        execFileSync('docker', ['image', 'inspect', img], { stdio: 'ignore', timeout: 10_000 });
        tags.add(img);
      } catch {
        // absent
      }
    }
    return tags;
  }
  const root = '/var/lib/docker/image';
  let drivers: string[] = [];
  try {
    drivers = fs.readdirSync(root);
  } catch {
    return tags;
  }
  for (const d of drivers) {
    try {
      const idx = JSON.parse(fs.readFileSync(path.join(root, d, 'repositories.json'), 'utf8')) as { Repositories?: Record<string, Record<string, string>> };
      for (const repo of Object.values(idx.Repositories ?? {})) for (const tag of Object.keys(repo)) tags.add(tag);
    } catch {
      // no index for this driver
    }
  }
  return tags;
}

export type Gate = { run: false; why: string } | { run: true; forced: boolean; haveBaseImages: boolean };

/**
 * Whether the Docker variant runs: KEMU_DOCKER_TESTS=0 skips it; =1 runs it, building the base images first,
 * and fails (not skips) when it cannot; unset runs it only when it is cheap (tools installed, root or a running
 * engine, and the base images already built — then the app image build is cached or quick).
 */
export function dockerGate(): Gate {
  const env = process.env.KEMU_DOCKER_TESTS;
  if (env === '0') return { run: false, why: 'KEMU_DOCKER_TESTS=0' };
  const forced = env === '1';
  const fail = (why: string): Gate => {
    if (forced) throw new Error(`KEMU_DOCKER_TESTS=1 but ${why}`);
    return { run: false, why };
  };
  if (!which('docker')) return fail('no docker CLI (apt-get install docker.io)');
  if (!which('docker-compose')) return fail('no docker-compose (apt-get install docker-compose)');
  const up = engineAnswers();
  if (!up && !which('dockerd')) return fail('no Docker engine running and no dockerd to start (apt-get install docker.io)');
  if (!up && process.getuid?.() !== 0) return fail('no Docker engine running and starting dockerd needs root');
  const tags = localTags(up);
  const absent = BASE_IMAGES.filter((i) => !tags.has(i));
  if (absent.length && !forced) return { run: false, why: `the base images ${absent.join(', ')} are not built (a cold build takes ~7 min); ${HOW}` };
  if (absent.length && !which('debootstrap')) return fail(`the base images ${absent.join(', ')} are missing and there is no debootstrap to build them (apt-get install debootstrap)`);
  return { run: true, forced, haveBaseImages: absent.length === 0 };
}

/** The one line a Docker test file prints: which variant ran, and why. */
export function variantLine(file: string, gate: Gate | { run: false; why: string }, engine?: Engine): string {
  if (!gate.run) return `${file}: processes-only — the Docker variant is skipped: ${gate.why} (KEMU_DOCKER_TESTS=1 forces it, =0 skips it)`;
  return `${file}: Docker variant — ${engine?.describe ?? 'engine'}${gate.forced ? ', forced by KEMU_DOCKER_TESTS=1' : ''}`;
}

export interface Engine {
  /** Started by us: stop() ends it. */
  child: ChildProcess | undefined;
  describe: string;
  stop(): Promise<void>;
}

const LOCK = path.join(os.tmpdir(), 'kemu-docker-lab.lock');

function pidAliveHere(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function lock(timeoutMs: number): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    // A holder that died without releasing leaves a stale lock (its pid is gone, or it never wrote one).
    let owner = NaN;
    try {
      owner = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'));
    } catch {
      // being created right now, or stale
    }
    const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if ((Number.isFinite(owner) && owner > 0 && !pidAliveHere(owner)) || (!Number.isFinite(owner) && age > 5_000)) {
      fs.rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another Docker lab holds ${LOCK} (pid ${owner})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The engine (ours or one already running), or why there is none. Holds the lab lock until stop(). */
export async function ensureEngine(): Promise<Engine | string> {
  const release = await lock(20 * 60_000);
  let held = true;
  const unlock = () => {
    if (held) release();
    held = false;
  };
  try {
    if ((await run('docker', ['info'], {}, 20_000)).code === 0) return { child: undefined, describe: 'an engine that was already running', stop: async () => unlock() };
    const dockerd = which('dockerd');
    if (!dockerd) throw new Error('no Docker engine running and no dockerd to start (apt-get install docker.io)');
    if (process.getuid?.() !== 0) throw new Error('no Docker engine running and starting dockerd needs root');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-dockerd-'));
    const log = fs.openSync(path.join(dir, 'dockerd.log'), 'a');
    const child = spawn(dockerd, ['--pidfile', path.join(dir, 'docker.pid'), '--exec-root', path.join(dir, 'exec')], { stdio: ['ignore', log, log], detached: true });
    fs.closeSync(log);
    const stopEngine = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
    };
    // Safety net when afterAll never runs (every test filtered out, a crash): the worker's exit ends dockerd.
    process.once('exit', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      unlock();
    });
    const t0 = Date.now();
    const deadline = t0 + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`dockerd exited (${child.exitCode}); see ${dir}/dockerd.log`);
      if ((await run('docker', ['info'], {}, 10_000)).code === 0) {
        const describe = `dockerd pid ${child.pid} started by the test (answered in ${((Date.now() - t0) / 1000).toFixed(1)}s)`;
        return { child, describe, stop: async () => { await stopEngine(); unlock(); } };
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    await stopEngine();
    throw new Error(`dockerd did not answer within 60s; see ${dir}/dockerd.log`);
  } catch (e) {
    unlock();
    return e instanceof Error ? e.message : String(e);
  }
}

// Test helper: a Docker engine for the compose lab. Uses a running one, or starts `dockerd` (as root) and
// stops it by pid afterwards; says why when neither is possible.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './lab.ts';

function which(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin'])) {
    const p = path.join(dir, bin);
    if (dir && fs.existsSync(p)) return p;
  }
  return undefined;
}

export interface Engine {
  /** Started by us: stop() ends it. */
  child: ChildProcess | undefined;
  stop(): Promise<void>;
}

/** Undefined when Docker and docker-compose can be used here, else why not. */
export function dockerUnavailable(): string | undefined {
  if (!which('docker')) return 'skipped: no docker CLI (apt-get install docker.io)';
  if (!which('docker-compose')) return 'skipped: no docker-compose (apt-get install docker-compose)';
  if (!which('debootstrap')) return 'skipped: no debootstrap to build the base images (apt-get install debootstrap)';
  return undefined;
}

export async function ensureEngine(): Promise<Engine | string> {
  if ((await run('docker', ['info'], {}, 20_000)).code === 0) return { child: undefined, stop: async () => undefined };
  const dockerd = which('dockerd');
  if (!dockerd) return 'skipped: no Docker engine running and no dockerd to start (apt-get install docker.io)';
  if (process.getuid?.() !== 0) return 'skipped: no Docker engine running and starting dockerd needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-dockerd-'));
  const log = fs.openSync(path.join(dir, 'dockerd.log'), 'a');
  const child = spawn(dockerd, ['--pidfile', path.join(dir, 'docker.pid'), '--exec-root', path.join(dir, 'exec')], { stdio: ['ignore', log, log], detached: true });
  fs.closeSync(log);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return `skipped: dockerd exited (${child.exitCode}); see ${dir}/dockerd.log`;
    if ((await run('docker', ['info'], {}, 10_000)).code === 0) return { child, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  return `skipped: dockerd did not answer within 60s; see ${dir}/dockerd.log`;
}

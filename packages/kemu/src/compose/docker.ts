// What `kemu compose` needs from the machine: the Docker CLI and engine, a compose (docker-compose 1.29 or the
// `docker compose` plugin), which images exist, and child processes whose output goes to a log file line by line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface Ran {
  code: number;
  stdout: string;
}

/** Runs a command; stdout and stderr go to `log` (appended) and, line by line, to onLine. Never throws. */
export function runLogged(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; log?: string; onLine?: (line: string) => void; cwd?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const fd = opts.log ? fs.openSync(opts.log, 'a') : undefined;
    if (fd !== undefined) fs.writeSync(fd, `$ ${cmd} ${args.join(' ')}\n`);
    let stdout = '';
    let child;
    try {
      child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      resolve({ code: 127, stdout: String(e) });
      return;
    }
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs) : undefined;
    let partial = '';
    const onData = (d: Buffer, isOut: boolean) => {
      if (fd !== undefined) fs.writeSync(fd, d);
      const text = d.toString('utf8');
      if (isOut) stdout += text;
      partial += text;
      const lines = partial.split(/\r?\n|\r/);
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) opts.onLine?.(l);
    };
    child.stdout.on('data', (d: Buffer) => onData(d, true));
    child.stderr.on('data', (d: Buffer) => onData(d, false));
    const done = (code: number) => {
      if (timer) clearTimeout(timer);
      if (partial.trim()) opts.onLine?.(partial);
      if (fd !== undefined) fs.closeSync(fd);
      resolve({ code, stdout });
    };
    child.on('error', (e) => {
      if (fd !== undefined) fs.writeSync(fd, `${e.message}\n`);
      done(127);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

export interface DockerCheck {
  ok: boolean;
  /** Server version when the engine answers. */
  version?: string;
  problem?: string;
  fix?: string;
}

export async function checkDocker(): Promise<DockerCheck> {
  const r = await runLogged('docker', ['version', '--format', '{{.Server.Version}}'], { timeoutMs: 20_000 });
  if (r.code === 127) return { ok: false, problem: 'the docker command is not installed', fix: 'install Docker: apt-get install docker.io (Debian/Ubuntu), or Docker Desktop / https://docs.docker.com/engine/install/' };
  if (r.code !== 0 || !r.stdout.trim())
    return {
      ok: false,
      problem: 'the Docker engine does not answer',
      fix: 'start it (sudo systemctl start docker, or as root: dockerd >/var/log/dockerd.log 2>&1 &); if it runs, add yourself to the docker group (sudo usermod -aG docker $USER, then log in again)',
    };
  return { ok: true, version: r.stdout.trim() };
}

export interface Compose {
  /** The command and its leading arguments: ['docker-compose'] or ['docker', 'compose']. */
  argv: string[];
  version: string;
}

export async function findCompose(): Promise<Compose | undefined> {
  const v1 = await runLogged('docker-compose', ['version', '--short'], { timeoutMs: 20_000 });
  if (v1.code === 0) return { argv: ['docker-compose'], version: v1.stdout.trim() };
  const v2 = await runLogged('docker', ['compose', 'version', '--short'], { timeoutMs: 20_000 });
  if (v2.code === 0) return { argv: ['docker', 'compose'], version: v2.stdout.trim() };
  return undefined;
}

export const COMPOSE_FIX = 'install docker-compose: apt-get install docker-compose (1.29), or the Compose plugin (apt-get install docker-compose-plugin)';

export async function imageExists(image: string): Promise<boolean> {
  return (await runLogged('docker', ['image', 'inspect', image], { timeoutMs: 20_000 })).code === 0;
}

export interface ContainerState {
  name: string;
  status: string;
  health?: string;
}

/** State and health of the named containers (absent ones are left out). */
export async function containerStates(names: string[]): Promise<ContainerState[]> {
  const r = await runLogged('docker', ['inspect', '-f', '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}', ...names], { timeoutMs: 20_000 });
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [name = '', status = '', health] = l.trim().split(/\s+/);
      return { name: name.replace(/^\//, ''), status, ...(health ? { health } : {}) };
    });
}

/** The container's IPv4 addresses on its networks (none while it is not running). */
export async function containerAddresses(name: string): Promise<string[]> {
  const r = await runLogged('docker', ['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', name], { timeoutMs: 20_000 });
  return r.code === 0 ? r.stdout.split(/\s+/).filter((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a)) : [];
}

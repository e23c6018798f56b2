// Runs the lab's processes like systemd units with Restart=on-failure: each in its own process group, output
// appended to DIR/logs/<name>.log, restarted with a growing back-off when it exits non-zero or dies by a
// signal — unless kemu itself stopped or killed it (`kemu stop|kill`), which holds it down until `kemu start`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ComponentSpec } from './topology.ts';
import type { ComponentRecord, ProcessState } from './state.ts';
import { probe, type ProbeTls } from './probe.ts';

/** The CA a health check verifies against, when the file is there yet. */
function caOf(file: string | undefined): ProbeTls | undefined {
  if (!file) return undefined;
  try {
    return { ca: fs.readFileSync(file) };
  } catch {
    return undefined;
  }
}

export interface SupervisorOptions {
  logDir: string;
  /** SIGTERM → SIGKILL grace. */
  graceMs: number;
  /** Called on every state change (to rewrite kemu.json). */
  onChange: () => void;
  /** Human-readable progress lines. */
  say: (line: string) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

interface Managed {
  spec: ComponentSpec;
  child: ChildProcess | undefined;
  state: ProcessState;
  /** Set by stop/kill: do not restart when it exits. */
  held: 'stopped' | 'killed' | undefined;
  restarts: number;
  backoffMs: number;
  startedAt: number;
  restartTimer: NodeJS.Timeout | undefined;
  exited: Promise<void>;
  lastExit: string | undefined;
  /** Bumped on every spawn so a stale readiness poll stops. */
  generation: number;
}

export class Supervisor {
  private readonly items = new Map<string, Managed>();
  private shuttingDown = false;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;

  constructor(private readonly o: SupervisorOptions) {
    this.initialBackoff = o.initialBackoffMs ?? 500;
    this.maxBackoff = o.maxBackoffMs ?? 10_000;
    fs.mkdirSync(o.logDir, { recursive: true });
  }

  add(spec: ComponentSpec): void {
    if (this.items.has(spec.name)) throw new Error(`duplicate component ${spec.name}`);
    this.items.set(spec.name, {
      spec,
      child: undefined,
      state: 'stopped',
      held: undefined,
      restarts: 0,
      backoffMs: this.initialBackoff,
      startedAt: 0,
      restartTimer: undefined,
      exited: Promise.resolve(),
      lastExit: undefined,
      generation: 0,
    });
  }

  names(): string[] {
    return [...this.items.keys()];
  }

  logFile(name: string): string {
    return path.join(this.o.logDir, `${name}.log`);
  }

  records(): ComponentRecord[] {
    return [...this.items.values()].map((m) => {
      const r: ComponentRecord = {
        name: m.spec.name,
        kind: m.spec.kind,
        pid: m.child?.pid ?? null,
        state: m.state,
        restarts: m.restarts,
        address: m.spec.address,
        ports: m.spec.ports,
        log: this.logFile(m.spec.name),
      };
      if (m.spec.healthUrl) r.healthUrl = m.spec.healthUrl;
      if (m.lastExit) r.lastExit = m.lastExit;
      return r;
    });
  }

  private get(name: string): Managed {
    const m = this.items.get(name);
    if (!m) throw new UnknownComponentError(name, this.names());
    return m;
  }

  /** Starts (or restarts after stop/kill) a component; resolves once it is spawned. */
  start(name: string): void {
    const m = this.get(name);
    m.held = undefined;
    if (m.restartTimer) clearTimeout(m.restartTimer);
    m.restartTimer = undefined;
    if (m.child) return;
    this.spawn(m);
  }

  private spawn(m: Managed): void {
    const log = this.logFile(m.spec.name);
    const fd = fs.openSync(log, 'a');
    fs.writeSync(fd, `--- kemu: starting ${m.spec.name} at ${new Date().toISOString()}: ${m.spec.command} ${m.spec.args.join(' ')}\n`);
    let child: ChildProcess;
    try {
      child = spawn(m.spec.command, m.spec.args, { stdio: ['ignore', fd, fd], detached: true, env: process.env });
    } finally {
      fs.closeSync(fd);
    }
    m.child = child;
    m.state = 'starting';
    m.startedAt = Date.now();
    m.generation++;
    const gen = m.generation;
    m.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.onExit(m, child, code, signal);
        resolve();
      });
      child.once('error', (err) => {
        // spawn failure (no exit event follows when the binary cannot be executed)
        if (child.pid === undefined) {
          this.onExit(m, child, 127, null, err.message);
          resolve();
        }
      });
    });
    this.o.onChange();
    void this.watchReady(m, gen);
  }

  private async watchReady(m: Managed, gen: number): Promise<void> {
    const url = m.spec.healthUrl;
    for (;;) {
      if (m.generation !== gen || m.state !== 'starting') return;
      const ok = url ? (await probe(url, 1000, caOf(m.spec.healthCaFile))).ok : true;
      if (m.generation !== gen || m.state !== 'starting') return;
      if (ok) {
        m.state = 'running';
        this.o.say(`${m.restarts ? 'up again' : 'up'}  ${m.spec.name.padEnd(22)} pid ${String(m.child?.pid).padEnd(8)} ${url ?? ''}`);
        this.o.onChange();
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private onExit(m: Managed, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, why?: string): void {
    if (m.child !== child) return;
    m.child = undefined;
    m.lastExit = why ?? (signal ? `signal ${signal}` : `exit code ${code}`);
    if (this.shuttingDown || m.held) {
      m.state = m.held ?? 'stopped';
      this.o.onChange();
      return;
    }
    if (code === 0 && !signal) {
      m.state = 'exited';
      this.o.say(`exited ${m.spec.name} (exit code 0; not restarted)`);
      this.o.onChange();
      return;
    }
    // A process that ran a while gets the short back-off again (as systemd resets its start counter).
    if (Date.now() - m.startedAt > 30_000) m.backoffMs = this.initialBackoff;
    const delay = m.backoffMs;
    m.backoffMs = Math.min(this.maxBackoff, m.backoffMs * 2);
    m.state = 'restarting';
    m.restarts++;
    this.o.say(`failed ${m.spec.name} (${m.lastExit}); restarting in ${(delay / 1000).toFixed(1)}s — see ${this.logFile(m.spec.name)}`);
    m.restartTimer = setTimeout(() => {
      m.restartTimer = undefined;
      if (!this.shuttingDown && !m.held && !m.child) this.spawn(m);
    }, delay);
    this.o.onChange();
  }

  /** SIGTERM, then SIGKILL after the grace period; held down until start(). Resolves once it has exited. */
  /** Stops a component for good and forgets it (a node group's machine the cloud deleted). */
  async remove(name: string): Promise<void> {
    await this.stop(name);
    this.items.delete(name);
    this.o.onChange();
  }

  async stop(name: string, graceMs = this.o.graceMs): Promise<void> {
    const m = this.get(name);
    m.held = m.held ?? 'stopped';
    await this.terminate(m, graceMs);
  }

  private async terminate(m: Managed, graceMs: number): Promise<void> {
    if (m.restartTimer) clearTimeout(m.restartTimer);
    m.restartTimer = undefined;
    const child = m.child;
    if (!child?.pid) {
      if (m.state === 'restarting' || m.state === 'starting') m.state = m.held ?? 'stopped';
      this.o.onChange();
      return;
    }
    m.state = 'stopping';
    this.o.onChange();
    signalGroup(child.pid, 'SIGCONT'); // a paused process cannot act on SIGTERM
    signalGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
    }, graceMs);
    await m.exited;
    clearTimeout(timer);
  }

  /** SIGKILL; held down until start(). */
  async kill(name: string): Promise<void> {
    const m = this.get(name);
    m.held = 'killed';
    if (m.restartTimer) clearTimeout(m.restartTimer);
    m.restartTimer = undefined;
    const child = m.child;
    if (!child?.pid) {
      if (m.state !== 'stopped' && m.state !== 'exited') m.state = 'killed';
      this.o.onChange();
      return;
    }
    signalGroup(child.pid, 'SIGKILL');
    await m.exited;
  }

  pause(name: string): void {
    const m = this.get(name);
    if (!m.child?.pid) throw new Error(`${name} is not running (${m.state})`);
    signalGroup(m.child.pid, 'SIGSTOP');
    m.state = 'paused';
    this.o.onChange();
  }

  unpause(name: string): void {
    const m = this.get(name);
    if (!m.child?.pid || m.state !== 'paused') throw new Error(`${name} is not paused (${m.state})`);
    signalGroup(m.child.pid, 'SIGCONT');
    m.state = 'running';
    this.o.onChange();
  }

  /** Stops everything in the given order of groups (each group in parallel), then SIGKILLs any straggler. */
  async shutdown(groups: string[][], graceMs = this.o.graceMs): Promise<void> {
    this.shuttingDown = true;
    for (const m of this.items.values()) {
      if (m.restartTimer) clearTimeout(m.restartTimer);
      m.restartTimer = undefined;
    }
    const listed = new Set(groups.flat());
    const rest = this.names().filter((n) => !listed.has(n));
    for (const group of [...groups, rest]) {
      await Promise.all(group.filter((n) => this.items.has(n)).map((n) => this.terminate(this.get(n), graceMs)));
    }
  }

  /** Synchronous last resort (process 'exit'): SIGKILL every child group still alive. */
  killAllNow(): void {
    for (const m of this.items.values()) if (m.child?.pid) signalGroup(m.child.pid, 'SIGKILL');
  }
}

export class UnknownComponentError extends Error {
  constructor(name: string, known: string[]) {
    super(`no component named "${name}"; known: ${known.join(', ')}`);
  }
}

/** Signals the process group led by pid (children were spawned detached), falling back to the pid alone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

// Test helper: start kemu binaries as real child processes, wait for conditions, and always kill them by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export const BIN = {
  apiserver: path.join(ROOT, 'packages/apiserver/bin/kube-apiserver.js'),
  controllerManager: path.join(ROOT, 'packages/controller-manager/bin/kube-controller-manager.js'),
  scheduler: path.join(ROOT, 'packages/scheduler/bin/kube-scheduler.js'),
  kubelet: path.join(ROOT, 'packages/kubelet/bin/kubelet.js'),
  metricsServer: path.join(ROOT, 'packages/metrics-server/bin/metrics-server.js'),
  addonManager: path.join(ROOT, 'packages/addon-manager/bin/kube-addon-manager.js'),
  kemu: path.join(ROOT, 'packages/kemu/bin/kemu.js'),
} as const;

export interface Proc {
  child: ChildProcess;
  name: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

const running = new Set<Proc>();

export function startProcess(name: string, bin: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const proc: Proc = {
    child,
    name,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/** Kills every process started through startProcess that is still running (for afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill('SIGKILL')));
}

/** Polls until fn returns a truthy value or the deadline passes (then throws with the last error). */
export async function waitFor<T>(what: string, fn: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

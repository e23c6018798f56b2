// Starts store-writer.ts as a child Node process and collects what it reports (tests and benchmarks).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export type Ack = [revision: number, key: string, value: string];

export interface WriterDone {
  errors: number;
  ms: number;
  commits: number;
  rows: number;
  busyRetries: number;
}

export interface WriterProcess {
  child: ChildProcess;
  acks: Ack[];
  errors: string[];
  ready: Promise<void>;
  /** Resolves when the process exits, with its summary if it finished normally. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; done?: WriterDone }>;
  go(): void;
  onAck?: (ack: Ack) => void;
}

const SCRIPT = fileURLToPath(new URL('./store-writer.ts', import.meta.url));

export function spawnWriter(path: string, id: string, count: number, concurrency: number, updatesPerKey = 1): WriterProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, path, id, String(count), String(concurrency), String(updatesPerKey)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  let done: WriterDone | undefined;
  const wp: WriterProcess = {
    child,
    acks: [],
    errors: [],
    ready,
    exited: new Promise((resolve) => {
      // 'close' (not 'exit'): it fires only after stdout has been read to its end, so every
      // acknowledgement the child wrote before exiting (or being killed) has been collected.
      child.on('close', (code, signal) => {
        setImmediate(() => resolve({ code, signal, ...(done ? { done } : {}) }));
      });
    }),
    go: () => child.stdin?.write('go\n'),
  };
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 10_000) stderr = stderr.slice(-10_000);
  });
  child.on('exit', (code) => {
    if (code !== 0 && code !== null && stderr) wp.errors.push(`stderr: ${stderr}`);
  });
  const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  rl.on('line', (line) => {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      wp.errors.push(`bad line: ${line}`);
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const m = msg as Record<string, unknown>;
    if (Array.isArray(m.ack)) {
      const [rev, key, value] = m.ack as unknown[];
      if (typeof rev === 'number' && typeof key === 'string' && typeof value === 'string') {
        const ack: Ack = [rev, key, value];
        wp.acks.push(ack);
        wp.onAck?.(ack);
      }
    } else if (m.ready === true) markReady();
    else if (typeof m.error === 'string') wp.errors.push(m.error);
    else if (typeof m.done === 'object' && m.done !== null) done = m.done as WriterDone;
  });
  return wp;
}

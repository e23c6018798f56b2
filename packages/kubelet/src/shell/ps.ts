// A container's process table and busybox's `ps` over it. PID 1 is the container's main process; each exec
// session and each `ps` takes the next PID while it runs. A debug container that targets another container
// (targetContainerName) joins that container's table, as it joins its process namespace, so its `ps` lists
// the target's processes beside its own.
import type { Result } from './builtins.ts';

export interface ProcessEntry {
  pid: number;
  /** The command line as /proc/<pid>/cmdline shows it, arguments joined by spaces. */
  args: string;
}

/** A process's response to a signal: true when it handles it (ends or otherwise acts). */
export type SignalHandler = (signal: number) => boolean;

export class ProcessTable {
  private next = 1;
  private readonly procs = new Map<number, string>();
  private readonly handlers = new Map<number, SignalHandler>();

  /** A new process; its PID. */
  spawn(args: string, onSignal?: SignalHandler): number {
    const pid = this.next++;
    this.procs.set(pid, args);
    if (onSignal) this.handlers.set(pid, onSignal);
    return pid;
  }

  /** Delivers a signal; false when there is no such process. */
  signal(pid: number, signal: number): boolean {
    if (!this.procs.has(pid)) return false;
    this.handlers.get(pid)?.(signal);
    return true;
  }

  exit(pid: number): void {
    this.procs.delete(pid);
    this.handlers.delete(pid);
  }

  has(pid: number): boolean {
    return this.procs.has(pid);
  }

  list(): ProcessEntry[] {
    return [...this.procs].map(([pid, args]) => ({ pid, args })).sort((a, b) => a.pid - b.pid);
  }
}

/** What an image runs when the pod gives no command (its entrypoint's processes as ps shows them). */
export function imageProcesses(image: string): string[] {
  const repo = image.replace(/[@].*$/, '').replace(/:[^/]*$/, '');
  const name = repo.slice(repo.lastIndexOf('/') + 1);
  if (/^(busybox|alpine|ubuntu|debian|centos|fedora)$/.test(name)) return ['sh'];
  if (/^nginx/.test(name)) return ['nginx: master process nginx -g daemon off;', 'nginx: worker process'];
  if (name === 'httpd') return ['httpd -DFOREGROUND'];
  if (name === 'redis') return ['redis-server *:6379'];
  if (name === 'pause') return ['/pause'];
  return [name || 'sh'];
}

const HEADER = 'PID   USER     TIME  COMMAND\n';

function line(p: ProcessEntry): string {
  return `${String(p.pid).padStart(5)} ${'root'.padEnd(8)} ${'0:00'.padStart(5)} ${p.args}\n`;
}

/** busybox ps: every process (options such as `aux`, `-ef` are accepted and change nothing). */
export function ps(table: ProcessTable | undefined, argv: readonly string[]): Result {
  const own = new ProcessTable();
  const t = table ?? own;
  if (!table) own.spawn('sh');
  const self = t.spawn(argv.join(' '));
  try {
    return { out: HEADER + t.list().map(line).join(''), status: 0 };
  } finally {
    t.exit(self);
  }
}

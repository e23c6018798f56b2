// An emulated container's file system: regular files by absolute path, and the directories made in it beside
// the image's usual ones. The shell reads and writes text; a file whose bytes are not valid UTF-8 (copied in by
// tar, a binary key of a volume) keeps its bytes beside the text, until the shell writes it. One instance lives as long as its container instance, so what one
// `kubectl exec` writes the next one reads (a restarted container starts afresh, as its writable layer does).
// Messages are busybox's (ls, mkdir, rm), the shell of the images learners use most.
import type { Result } from './builtins.ts';

/** Directories every emulated image has. */
export const IMAGE_DIRS: readonly string[] = ['/', '/bin', '/dev', '/etc', '/home', '/proc', '/root', '/sbin', '/sys', '/tmp', '/usr', '/usr/bin', '/usr/local', '/usr/local/bin', '/usr/sbin', '/var', '/var/log', '/var/run', '/run'];

/** Normalises an absolute path: no `.`/`..` segments, no trailing or doubled slashes. */
export function normalize(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

export function dirname(path: string): string {
  const p = normalize(path);
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** Files' text by path, with the bytes of those whose text is not their exact content, and their modes. */
export class FileMap extends Map<string, string> {
  readonly bytes = new Map<string, Buffer>();
  readonly modes = new Map<string, number>();

  // A write through the shell makes the file what it wrote (its text).
  override set(path: string, text: string): this {
    this.bytes?.delete(path);
    return super.set(path, text);
  }

  override delete(path: string): boolean {
    this.bytes.delete(path);
    this.modes.delete(path);
    return super.delete(path);
  }
}

export class ContainerFs {
  readonly files = new FileMap();
  readonly dirs = new Set<string>(IMAGE_DIRS);
  /** Paths that are symbolic links (a volume's `..data` and keys), with their targets; their contents are copies. */
  readonly links = new Map<string, string>();
  /** Modification times `ls -l` shows, where they are not the file system's own creation time. */
  readonly mtimes = new Map<string, number>();

  /** `bornAt`: when the container instance's file system was made (its image's files and directories show it). */
  constructor(
    files: Record<string, string> = {},
    readonly bornAt: number = Date.now(),
  ) {
    for (const [k, v] of Object.entries(files)) this.write(k, v);
  }

  mtime(path: string): number {
    return this.mtimes.get(normalize(path)) ?? this.bornAt;
  }

  /** Writes a file, making its parent directories (as an image build or a volume mount would have). */
  write(path: string, content: string): void {
    const p = normalize(path);
    this.mkdirs(dirname(p));
    this.files.set(p, content);
  }

  /** Writes a file's exact bytes (and its mode). */
  writeBytes(path: string, content: Buffer, mode?: number): void {
    const p = normalize(path);
    const text = content.toString('utf8');
    this.write(p, text);
    if (!Buffer.from(text, 'utf8').equals(content)) this.files.bytes.set(p, Buffer.from(content));
    if (mode !== undefined) this.files.modes.set(p, mode);
  }

  /** A file's bytes; undefined when there is no such file. */
  readBytes(path: string): Buffer | undefined {
    const p = normalize(path);
    const text = this.files.get(p);
    return text === undefined ? undefined : (this.files.bytes.get(p) ?? Buffer.from(text, 'utf8'));
  }

  /** A file's permission bits (0644 unless set). */
  mode(path: string): number {
    return this.files.modes.get(normalize(path)) ?? 0o644;
  }

  mkdirs(path: string): void {
    for (let p = normalize(path); !this.dirs.has(p); p = dirname(p)) this.dirs.add(p);
  }

  isDir(path: string): boolean {
    return this.dirs.has(normalize(path));
  }

  /** The names directly inside a directory, sorted as `ls` prints them. */
  entries(dir: string): string[] {
    const d = normalize(dir);
    const prefix = d === '/' ? '/' : `${d}/`;
    const names = new Set<string>();
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p === d || !p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      if (rest && !rest.includes('/')) names.add(rest);
    }
    return [...names].sort();
  }

  /** Everything under a directory (itself included), directories before their contents. */
  walk(dir: string): { path: string; dir: boolean }[] {
    const d = normalize(dir);
    const out: { path: string; dir: boolean }[] = [{ path: d, dir: true }];
    for (const name of this.entries(d)) {
      const p = d === '/' ? `/${name}` : `${d}/${name}`;
      if (this.isDir(p)) out.push(...this.walk(p));
      else out.push({ path: p, dir: false });
    }
    return out;
  }

  remove(path: string): void {
    const p = normalize(path);
    this.files.delete(p);
    const prefix = `${p}/`;
    for (const f of [...this.files.keys()]) if (f.startsWith(prefix)) this.files.delete(f);
    for (const x of [...this.dirs]) if (x === p || x.startsWith(prefix)) this.dirs.delete(x);
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** busybox ls -l's time: ctime's "Mmm dd hh:mm", or "Mmm dd  yyyy" beyond six months back or an hour ahead (UTC, as a container without TZ). */
function lsTime(t: number, now: number): string {
  const d = new Date(t);
  const day = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)}`;
  const recent = t > now - 182.5 * 86_400_000 && t < now + 3_600_000;
  return recent ? `${day} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}` : `${day}  ${d.getUTCFullYear()}`;
}

function permString(mode: number): string {
  return [0o400, 0o200, 0o100, 0o40, 0o20, 0o10, 0o4, 0o2, 0o1].map((bit, i) => (mode & bit ? 'rwx'[i % 3] : '-')).join('');
}

/** One busybox `ls -l` line, and the 1K blocks it counts in "total". */
function longEntry(fs: ContainerFs, path: string, name: string, now: number): { line: string; blocks: number } {
  const link = fs.links.get(path);
  const dir = link === undefined && fs.isDir(path);
  const size = link !== undefined ? Buffer.byteLength(link) : dir ? 4096 : (fs.readBytes(path)?.length ?? 0);
  const mode = link !== undefined ? 'lrwxrwxrwx' : dir ? 'drwxr-xr-x' : `-${permString(fs.mode(path))}`;
  const child = (n: string) => (path === '/' ? `/${n}` : `${path}/${n}`);
  const nlink = dir ? 2 + fs.entries(path).filter((n) => fs.isDir(child(n)) && !fs.links.has(child(n))).length : 1;
  const line = `${mode} ${String(nlink).padStart(4)} ${'root'.padEnd(8)} ${'root'.padEnd(8)} ${String(size).padStart(9)} ${lsTime(fs.mtime(path), now)} ${name}${link !== undefined ? ` -> ${link}` : ''}`;
  return { line, blocks: link !== undefined ? 0 : Math.ceil(size / 4096) * 4 };
}

/** ls [-a] [-1] [-l] PATH…: names one per line (output is not a terminal), or busybox's long format with -l. */
export function ls(fs: ContainerFs, args: readonly string[], abs: (p: string) => string, now: number = fs.bornAt): Result {
  const paths = args.filter((a) => !a.startsWith('-') || a === '-');
  const all = args.some((a) => /^-[a-zA-Z]*a/.test(a));
  const long = args.some((a) => /^-[a-zA-Z]*l/.test(a));
  const targets = paths.length ? paths : ['.'];
  let out = '';
  let err = '';
  for (const [k, t] of targets.entries()) {
    const p = abs(t === '.' ? '' : t);
    if (fs.files.has(p) || (long && fs.links.has(p))) {
      out += long ? `${longEntry(fs, p, t, now).line}\n` : `${t}\n`;
      continue;
    }
    if (!fs.isDir(p)) {
      err += `ls: ${t}: No such file or directory\n`;
      continue;
    }
    if (targets.length > 1) out += `${k > 0 ? '\n' : ''}${t}:\n`;
    const names = (all ? ['.', '..'] : []).concat(fs.entries(p).filter((n) => all || !n.startsWith('.')));
    if (!long) {
      out += names.map((n) => `${n}\n`).join('');
      continue;
    }
    const rows = names.map((n) => longEntry(fs, n === '.' ? p : n === '..' ? dirname(p) : p === '/' ? `/${n}` : `${p}/${n}`, n, now));
    out += `total ${rows.reduce((sum, r) => sum + r.blocks, 0)}\n${rows.map((r) => `${r.line}\n`).join('')}`;
  }
  return { out, ...(err ? { err } : {}), status: err ? 1 : 0 };
}

/** mkdir [-p] DIR…: without -p the parent must exist and the directory must not. */
export function mkdir(fs: ContainerFs, args: readonly string[], abs: (p: string) => string): Result {
  const parents = args.some((a) => /^-[a-z]*p/.test(a));
  let err = '';
  for (const a of args.filter((x) => !x.startsWith('-'))) {
    const p = abs(a);
    if (parents) {
      if (fs.files.has(p)) err += `mkdir: can't create directory '${a}': File exists\n`;
      else fs.mkdirs(p);
    } else if (fs.isDir(p) || fs.files.has(p)) err += `mkdir: can't create directory '${a}': File exists\n`;
    else if (!fs.isDir(dirname(p))) err += `mkdir: can't create directory '${a}': No such file or directory\n`;
    else fs.dirs.add(p);
  }
  return { out: '', ...(err ? { err } : {}), status: err ? 1 : 0 };
}

/** rm [-r] [-f] PATH…: a directory needs -r; a missing path is an error unless -f. */
export function rm(fs: ContainerFs, args: readonly string[], abs: (p: string) => string): Result {
  const flags = args.filter((a) => a.startsWith('-')).join('');
  const recursive = /[rR]/.test(flags);
  const force = flags.includes('f');
  let err = '';
  for (const a of args.filter((x) => !x.startsWith('-'))) {
    const p = abs(a);
    if (fs.isDir(p)) {
      if (recursive) fs.remove(p);
      else err += `rm: '${a}' is a directory\n`;
    } else if (fs.files.has(p)) fs.files.delete(p);
    else if (!force) err += `rm: can't remove '${a}': No such file or directory\n`;
  }
  return { out: '', ...(err ? { err } : {}), status: err ? 1 : 0 };
}

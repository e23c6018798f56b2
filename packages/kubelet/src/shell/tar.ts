// `tar` over the emulated file system, for `kubectl cp` (which runs `tar cf - <path>` and `tar -xmf - -C <dir>`
// in the container): real ustar archives on stdout/stdin through tar-stream, a maintained streaming packer and
// parser with no native parts (already in the tree under @kubernetes/client-node's tar-fs). Members carry the
// files' exact bytes and modes. `z` gzips (node:zlib); a gzipped archive is also read without it, as busybox's
// seamless decompression does; bzip2 and xz (j, J) are refused by name. Busybox's wording for errors.
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { normalize, type ContainerFs } from './filesystem.ts';

export interface TarResult {
  out: Buffer;
  err: string;
  status: number;
}

interface TarArgs {
  mode: 'c' | 'x' | 't';
  file: string | undefined;
  dir: string | undefined;
  paths: string[];
  gzip?: boolean;
  unsupported?: string;
}

/** busybox tar's options: the first word may omit its dash; f and C take the next word. */
export function parseTarArgs(args: readonly string[]): TarArgs | string {
  const out: TarArgs = { mode: 'c', file: undefined, dir: undefined, paths: [] };
  let mode: 'c' | 'x' | 't' | undefined;
  const rest = [...args];
  for (let k = 0; k < rest.length; k++) {
    let a = rest[k] ?? '';
    if (k === 0 && !a.startsWith('-')) a = `-${a}`;
    if (a === '-C' || a === '--directory') {
      out.dir = rest[++k];
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      out.paths.push(a);
      continue;
    }
    if (a.startsWith('--')) {
      if (a === '--no-same-owner' || a === '--no-same-permissions') continue;
      return `tar: unrecognized option '${a}'`;
    }
    for (const f of a.slice(1)) {
      if (f === 'c' || f === 'x' || f === 't') mode = f;
      else if (f === 'f') out.file = rest[++k];
      else if (f === 'C') out.dir = rest[++k];
      else if (f === 'z') out.gzip = true;
      else if (f === 'j' || f === 'J') out.unsupported = f;
      else if (!'vmoph'.includes(f)) return `tar: invalid option -- '${f}'`;
    }
  }
  if (!mode) return 'tar: need to specify one of -c, -x or -t';
  out.mode = mode;
  return out;
}

/** Runs tar with `stdin` as its input: the archive (c) or listing (t) on stdout. */
export async function tar(fs: ContainerFs, args: readonly string[], stdin: Buffer, cwd: string): Promise<TarResult> {
  const parsed = parseTarArgs(args);
  if (typeof parsed === 'string') return { out: Buffer.alloc(0), err: `${parsed}\n`, status: 1 };
  if (parsed.unsupported) return { out: Buffer.alloc(0), err: `tar: kemu's emulated tar has no compression (-${parsed.unsupported})\n`, status: 1 };
  if (parsed.file !== undefined && parsed.file !== '-') return { out: Buffer.alloc(0), err: `tar: kemu's emulated tar reads and writes only - (stdin/stdout)\n`, status: 1 };
  const abs = (p: string, base: string) => normalize(p.startsWith('/') ? p : `${base}/${p}`);
  const dir = parsed.dir !== undefined ? abs(parsed.dir, cwd) : cwd;
  if (parsed.dir !== undefined && !fs.isDir(dir)) return { out: Buffer.alloc(0), err: `tar: can't change directory to '${parsed.dir}': No such file or directory\n`, status: 1 };
  if (parsed.mode === 'c') {
    const r = await create(fs, parsed.paths, dir);
    return parsed.gzip ? { ...r, out: gzipSync(r.out) } : r;
  }
  let archive = stdin;
  if (parsed.gzip || (stdin[0] === 0x1f && stdin[1] === 0x8b)) {
    try {
      archive = gunzipSync(stdin);
    } catch {
      return { out: Buffer.alloc(0), err: 'tar: invalid magic\ntar: short read\n', status: 1 };
    }
  }
  return extract(fs, archive, dir, parsed.mode === 't');
}

async function create(fs: ContainerFs, paths: readonly string[], dir: string): Promise<TarResult> {
  if (paths.length === 0) return { out: Buffer.alloc(0), err: 'tar: empty archive\n', status: 1 };
  const pack = tarPack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  let err = '';
  let stripped = false;
  for (const p of paths) {
    const full = normalize(p.startsWith('/') ? p : `${dir}/${p}`);
    // Member names are as given, less a leading '/' (busybox says so once).
    let name = p.replace(/\/+$/, '') || '/';
    if (name.startsWith('/')) {
      name = name.replace(/^\/+/, '');
      if (!stripped) err += "tar: removing leading '/' from member names\n";
      stripped = true;
    }
    const members = fs.isDir(full) ? fs.walk(full) : fs.files.has(full) ? [{ path: full, dir: false }] : undefined;
    if (!members) {
      err += `tar: ${p}: No such file or directory\n`;
      continue;
    }
    for (const m of members) {
      const rel = m.path === full ? name : `${name ? `${name}/` : ''}${m.path.slice(full === '/' ? 1 : full.length + 1)}`;
      if (m.dir) pack.entry({ name: `${rel}/`, type: 'directory', mode: 0o755, mtime: new Date(0) });
      else pack.entry({ name: rel, type: 'file', mode: fs.mode(m.path), mtime: new Date(0) }, fs.readBytes(m.path) ?? Buffer.alloc(0));
    }
  }
  pack.finalize();
  await ended;
  return { out: Buffer.concat(chunks), err, status: err.includes('No such file') ? 1 : 0 };
}

async function extract(fs: ContainerFs, archive: Buffer, dir: string, listOnly: boolean): Promise<TarResult> {
  const ex = tarExtract();
  const listed: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => parts.push(c as Buffer));
      stream.on('end', () => {
        const target = normalize(`${dir}/${header.name}`);
        if (listOnly) listed.push(header.name);
        else if (header.type === 'directory') fs.mkdirs(target);
        else if (header.type === 'file' || header.type === 'contiguous-file') fs.writeBytes(target, Buffer.concat(parts), header.mode === undefined ? undefined : header.mode & 0o7777);
        next();
      });
      stream.resume();
    });
    ex.on('finish', () => resolve());
    ex.on('error', reject);
  });
  Readable.from([archive]).pipe(ex);
  try {
    await done;
  } catch (e) {
    return { out: Buffer.alloc(0), err: `tar: ${archive.length === 0 ? 'short read' : (e as Error).message}\n`, status: 1 };
  }
  return { out: Buffer.from(listed.map((l) => `${l}\n`).join(''), 'utf8'), err: '', status: 0 };
}

// How the kubelet's atomic writer (pkg/volume/util/atomic_writer.go) lays out a configMap, secret, downwardAPI or
// projected volume: the files live in a timestamped directory `..2026_12_04_10_00_00.<random>`, `..data` links
// to it, and each top-level entry of the volume links to `..data/<entry>`; an update writes a new timestamped
// directory, moves `..data` and removes the old one, so a reader never sees half an update. The emulated file
// system has no links: the same bytes are written under the timestamped directory, `..data` and the entry's own
// path, and the links are recorded for whoever shows them.
import type { VolumeFile } from '../volumes/contents.ts';

export interface AtomicLayout {
  /** Absolute path → file, for every place the volume's bytes are seen. */
  files: Map<string, VolumeFile>;
  /** Link path → its target, as `ls -l` would print it. */
  links: Map<string, string>;
}

/** The timestamped directory's name: Go's "..2006_01_02_15_04_05." and os.MkdirTemp's random number. */
export function timestampDir(now: number, random: number): string {
  const iso = new Date(now).toISOString();
  const stamp = `${iso.slice(0, 10).replace(/-/g, '_')}_${iso.slice(11, 19).replace(/:/g, '_')}`;
  return `..${stamp}.${random >>> 0}`;
}

/** The volume's files (by path relative to the mount) laid out under `mountPath` in `tsDir`. */
export function atomicLayout(mountPath: string, files: ReadonlyMap<string, VolumeFile>, tsDir: string): AtomicLayout {
  const base = mountPath.replace(/\/+$/, '');
  const out: AtomicLayout = { files: new Map(), links: new Map([[`${base}/..data`, tsDir]]) };
  for (const [rel, f] of files) {
    out.files.set(`${base}/${tsDir}/${rel}`, f);
    out.files.set(`${base}/..data/${rel}`, f);
    out.files.set(`${base}/${rel}`, f);
    const top = rel.split('/')[0] ?? rel;
    out.links.set(`${base}/${top}`, `..data/${top}`);
  }
  return out;
}

/** A fingerprint of a volume's contents: the layout is redone only when it changes. */
export function contentsKey(files: ReadonlyMap<string, VolumeFile>): string {
  return JSON.stringify([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, f]) => [p, f.mode, f.content.toString('base64')]));
}

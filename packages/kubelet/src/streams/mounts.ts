// Puts a container's volumes into its emulated file system before an exec or attach session: the contents its
// pod worker reads (volumes/contents.ts) are written at the mount paths, and a source's later changes (a
// ConfigMap edited, a key removed, a token refreshed) replace what an earlier session saw. A subPath mount is
// written once, as the kubelet never updates those. configMap, secret, downwardAPI and projected volumes get the
// atomic writer's layout (atomic-layout.ts): `..data`, a timestamped directory, and a new one on each change.
import type { Container } from '@kemu/api';
import type { Mount, VolumeFile } from '../volumes/contents.ts';
import { atomicLayout, contentsKey, timestampDir } from './atomic-layout.ts';
import type { RunningContainer } from './containers.ts';

/** Per container instance: each atomic-writer mount's contents key, timestamped directory and links. */
const layouts = new WeakMap<object, Map<string, { key: string; tsDir: string; links: string[] }>>();

/** What a pod offers to read its containers' volumes (its worker, with the node's client). */
export interface MountSource {
  mounts?(container: Container): Promise<Mount[]>;
}

export async function refreshMounts(c: RunningContainer): Promise<void> {
  const read = (c.pod as MountSource).mounts;
  if (!read) return;
  let mounts: Mount[];
  try {
    mounts = await read.call(c.pod, c.spec);
  } catch {
    return;
  }
  const { fs, mounted } = c.state;
  let laid = layouts.get(c.state);
  if (!laid) layouts.set(c.state, (laid = new Map()));
  for (const m of mounts) {
    const known = mounted.get(m.mountPath);
    if (known && !m.live) continue;
    if (m.live && !m.single) {
      relayout(c, m, laid);
      continue;
    }
    if (known) for (const p of known) if (!m.files.has(p)) fs.remove(p);
    if (!m.single) fs.mkdirs(m.mountPath);
    for (const [p, f] of m.files) fs.writeBytes(p, f.content, f.mode);
    mounted.set(m.mountPath, new Set(m.files.keys()));
  }
}

/** Writes an atomic-writer volume again when its contents changed: a new timestamped directory, the old one gone. */
function relayout(c: RunningContainer, m: Mount, laid: Map<string, { key: string; tsDir: string; links: string[] }>): void {
  const { fs, mounted } = c.state;
  const base = m.mountPath.replace(/\/+$/, '');
  const rel = new Map<string, VolumeFile>();
  for (const [p, f] of m.files) if (p.startsWith(`${base}/`)) rel.set(p.slice(base.length + 1), f);
  const key = contentsKey(rel);
  const before = laid.get(m.mountPath);
  if (before?.key === key && mounted.has(m.mountPath)) return;
  const now = Date.now();
  const tsDir = timestampDir(now, Math.floor(Math.random() * 2 ** 32));
  const layout = atomicLayout(base, rel, tsDir);
  for (const p of mounted.get(m.mountPath) ?? []) if (!layout.files.has(p)) fs.remove(p);
  if (before) {
    fs.remove(`${base}/${before.tsDir}`);
    for (const l of before.links) {
      fs.links.delete(l);
      // A top-level entry the new contents lack (a directory of keys too) goes with its link.
      if (!layout.links.has(l)) fs.remove(l);
    }
  }
  fs.remove(`${base}/..data`);
  fs.mkdirs(base);
  fs.mkdirs(`${base}/${tsDir}`);
  fs.mkdirs(`${base}/..data`);
  for (const [p, f] of layout.files) fs.writeBytes(p, f.content, f.mode);
  for (const [l, target] of layout.links) fs.links.set(l, target);
  for (const p of [...layout.files.keys(), ...layout.links.keys(), `${base}/${tsDir}`, base]) fs.mtimes.set(p, now);
  mounted.set(m.mountPath, new Set(layout.files.keys()));
  laid.set(m.mountPath, { key, tsDir, links: [...layout.links.keys()] });
}

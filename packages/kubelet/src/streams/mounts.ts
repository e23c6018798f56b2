// Puts a container's volumes into its emulated file system before an exec or attach session: the contents its
// pod worker reads (volumes/contents.ts) are written at the mount paths, and a source's later changes (a
// ConfigMap edited, a key removed, a token refreshed) replace what an earlier session saw. A subPath mount is
// written once, as the kubelet never updates those.
import type { Container } from '@kemu/api';
import type { Mount } from '../volumes/contents.ts';
import type { RunningContainer } from './containers.ts';

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
  for (const m of mounts) {
    const known = mounted.get(m.mountPath);
    if (known && !m.live) continue;
    if (known) for (const p of known) if (!m.files.has(p)) fs.remove(p);
    if (!m.single) fs.mkdirs(m.mountPath);
    for (const [p, f] of m.files) fs.writeBytes(p, f.content, f.mode);
    mounted.set(m.mountPath, new Set(m.files.keys()));
  }
}

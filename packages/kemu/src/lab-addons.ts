// The lab's addons directory, DIR/addons, which its kube-addon-manager reads (--addons-dir). Made on the first
// `kemu up` with kemu's default addons (packages/kemu/addons: CoreDNS and metrics-server) so kube-system looks
// like a real cluster's; after that it is the user's: files dropped in are applied, files removed are pruned
// (Reconcile objects), and a removed default addon stays removed. Deleting the directory brings the defaults back.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_ADDONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../addons');

export function labAddonsDir(dataDir: string): string {
  return path.join(dataDir, 'addons');
}

/** Makes DIR/addons with the default addons when it does not exist; returns it and the files it wrote. */
export function ensureLabAddons(dataDir: string, defaults = DEFAULT_ADDONS): { dir: string; seeded: string[] } {
  const dir = labAddonsDir(dataDir);
  if (fs.existsSync(dir)) return { dir, seeded: [] };
  fs.mkdirSync(dir, { recursive: true });
  const seeded = fs.readdirSync(defaults).filter((f) => f.endsWith('.yaml')).sort();
  for (const f of seeded) fs.copyFileSync(path.join(defaults, f), path.join(dir, f));
  return { dir, seeded };
}

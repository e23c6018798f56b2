// Starts a component binary: from its esbuild bundle (packages/<pkg>/dist/<bin>.mjs, made by
// `npm run build`) when the bundle is newer than every source it was built from, else from the TypeScript
// sources through tsx's loader. Plain JavaScript, because it runs before any TypeScript loader exists.
//
// Why a bundle: loading ~300 modules through tsx's loader hooks costs ~2.5 s of CPU per process start, the
// bundle ~0.6 s; a lab starts a dozen processes at once on a laptop's few cores. Why the freshness check: an
// edited source must never run stale code, so a bundle older than any of its inputs is not used (the check is
// one stat per input, ~2 ms). KEMU_NO_BUNDLE=1 always runs the sources.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

/** The bundle's path if it is there and newer than all its inputs, else undefined. */
export function freshBundle(pkgDir, bin) {
  const bundle = path.join(pkgDir, 'dist', `${bin}.mjs`);
  try {
    const built = statSync(bundle).mtimeMs;
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'dist', `${bin}.inputs.json`), 'utf8'));
    const root = path.resolve(pkgDir, 'dist', manifest.root);
    for (const input of manifest.inputs) if (statSync(path.join(root, input)).mtimeMs > built) return undefined;
    return bundle;
  } catch {
    return undefined; // no bundle, no manifest, or an input gone: the sources are the truth
  }
}

/** Runs bin `bin` of the package whose bin/ stub is `stubUrl` (the stub's import.meta.url). */
export async function launch(stubUrl, bin) {
  const pkgDir = path.resolve(path.dirname(fileURLToPath(stubUrl)), '..');
  const bundle = process.env.KEMU_NO_BUNDLE === '1' ? undefined : freshBundle(pkgDir, bin);
  if (bundle) {
    // Stack traces and klog's file:line (log-caller.ts) map through the bundle's source map to the .ts sources.
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(bundle).href);
    return;
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(pkgDir, 'src', 'main.ts')).href);
}

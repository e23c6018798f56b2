// `npm run build`: bundles each component binary (every "bin" of packages/*/package.json, entry src/main.ts)
// into packages/<pkg>/dist/<bin>.mjs with esbuild, plus its source map and the list of sources it was built
// from, which packages/base/launch.mjs checks before it runs the bundle (an edited source means the sources
// run, never a stale bundle). Workspace packages (@kemu/*) are bundled; every other package stays an import,
// resolved from node_modules at run time as before. A bundle already newer than all its inputs is kept.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBundle } from '../packages/base/launch.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');

const bins = [];
for (const pkg of readdirSync(path.join(ROOT, 'packages'))) {
  const manifest = path.join(ROOT, 'packages', pkg, 'package.json');
  if (!existsSync(manifest)) continue;
  for (const bin of Object.keys(JSON.parse(readFileSync(manifest, 'utf8')).bin ?? {})) bins.push({ pkgDir: path.join(ROOT, 'packages', pkg), bin });
}

/** Bare specifiers other than @kemu/* stay imports (node_modules), as they were when the sources ran. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@kemu/') ? undefined : { path: args.path, external: true }));
  },
};

/** import.meta.url in a source is the source's own URL (files beside it are read through it), not the bundle's. */
function ownImportMetaUrl(outDir) {
  return {
    name: 'own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const rel = path.relative(outDir, args.path).split(path.sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

async function bundle({ pkgDir, bin }) {
  const outDir = path.join(pkgDir, 'dist');
  const out = path.join(outDir, `${bin}.mjs`);
  if (!force && freshBundle(pkgDir, bin)) return `${bin}: up to date`;
  mkdirSync(outDir, { recursive: true });
  const t = Date.now();
  const r = await build({
    absWorkingDir: ROOT,
    entryPoints: [path.join(pkgDir, 'src', 'main.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    keepNames: true, // constructor and function names read at run time stay the sources' ones
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [externals, ownImportMetaUrl(outDir)],
  });
  // The sources, and what else decides how they compile and resolve: tsconfig.json and the packages' manifests.
  const manifests = readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/package.json`).filter((p) => existsSync(path.join(ROOT, p)));
  const inputs = [...Object.keys(r.metafile.inputs).filter((p) => !p.includes('node_modules/')), 'tsconfig.json', ...manifests];
  // The map and the input list first, the bundle last (renamed into place): the bundle's mtime is its build time.
  for (const f of r.outputFiles.filter((f) => f.path !== out)) writeFileSync(f.path, f.contents);
  writeFileSync(path.join(outDir, `${bin}.inputs.json`), `${JSON.stringify({ root: path.relative(outDir, ROOT), inputs }, null, 1)}\n`);
  const main = r.outputFiles.find((f) => f.path === out);
  writeFileSync(`${out}.tmp`, main.contents);
  renameSync(`${out}.tmp`, out);
  return `${bin}: ${inputs.length - manifests.length - 1} sources, ${(main.contents.length / 1e6).toFixed(1)} MB, ${Date.now() - t} ms`;
}

for (const line of await Promise.all(bins.map(bundle))) console.log(line);

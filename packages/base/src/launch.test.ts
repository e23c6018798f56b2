// The bin stubs' choice between a bundle and the sources (launch.mjs): a bundle runs only while it is newer
// than every input it lists; an edited, missing or unlisted input means the sources run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshBundle } from '../launch.mjs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** <root>/packages/p with src/main.ts, and dist/x.mjs built at `builtAt` (ms) listing the inputs. */
function tree(builtAt: number, inputs = ['packages/p/src/main.ts']) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-launch-'));
  dirs.push(root);
  const pkg = path.join(root, 'packages', 'p');
  fs.mkdirSync(path.join(pkg, 'src'), { recursive: true });
  fs.mkdirSync(path.join(pkg, 'dist'));
  const src = path.join(pkg, 'src', 'main.ts');
  fs.writeFileSync(src, 'export {};\n');
  const old = new Date(builtAt - 60_000);
  fs.utimesSync(src, old, old);
  fs.writeFileSync(path.join(pkg, 'dist', 'x.inputs.json'), JSON.stringify({ root: '../../..', inputs }));
  const bundle = path.join(pkg, 'dist', 'x.mjs');
  fs.writeFileSync(bundle, '');
  fs.utimesSync(bundle, new Date(builtAt), new Date(builtAt));
  return { pkg, src, bundle };
}

describe('freshBundle', () => {
  it('is the bundle while every input is older', () => {
    const t = tree(Date.now());
    expect(freshBundle(t.pkg, 'x')).toBe(t.bundle);
  });

  it('is undefined once an input is edited after the build', () => {
    const t = tree(Date.now() - 10_000);
    fs.writeFileSync(t.src, 'export const edited = 1;\n');
    expect(freshBundle(t.pkg, 'x')).toBeUndefined();
  });

  it('is undefined when an input is gone, the list is missing, or there is no bundle', () => {
    const gone = tree(Date.now(), ['packages/p/src/main.ts', 'packages/p/src/removed.ts']);
    expect(freshBundle(gone.pkg, 'x')).toBeUndefined();
    const unlisted = tree(Date.now());
    fs.rmSync(path.join(unlisted.pkg, 'dist', 'x.inputs.json'));
    expect(freshBundle(unlisted.pkg, 'x')).toBeUndefined();
    const none = tree(Date.now());
    fs.rmSync(none.bundle);
    expect(freshBundle(none.pkg, 'x')).toBeUndefined();
  });
});

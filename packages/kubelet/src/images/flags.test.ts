import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOptions } from '../options.ts';
import { parseImageReference, type ImageReference } from './reference.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kemu-image-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the kubelet\'s image flags', () => {
  it('default to the kubelet\'s 10 s / 300 s back-off and the built-in catalogue', () => {
    const o = parseOptions(['--hostname-override=n']);
    expect(o.flags['image-pull-backoff']).toBe(10_000);
    expect(o.flags['image-pull-max-backoff']).toBe(300_000);
    expect(o.imageCatalog?.lookup(parseImageReference('nginx:1.161') as ImageReference).kind).toBe('missing');
  });

  it('--image-catalog merges files over the built-in catalogue; a bad one is refused naming the flag', () => {
    const file = path.join(dir, 'c.yaml');
    writeFileSync(file, 'repositories:\n  nginx:\n    tags: ["1.161"]\n');
    const o = parseOptions(['--hostname-override=n', `--image-catalog=${file}`, '--image-pull-backoff=1s', '--image-pull-max-backoff=4s']);
    expect(o.imageCatalog?.lookup(parseImageReference('nginx:1.161') as ImageReference).kind).toBe('found');
    expect(o.flags['image-pull-max-backoff']).toBe(4000);
    expect(() => parseOptions([`--image-catalog=${path.join(dir, 'missing.yaml')}`])).toThrow(/^invalid value for --image-catalog: ENOENT/);
    expect(() => parseOptions(['--image-pull-backoff=10s', '--image-pull-max-backoff=5s'])).toThrow('--image-pull-max-backoff must not be less than --image-pull-backoff');
  });
});

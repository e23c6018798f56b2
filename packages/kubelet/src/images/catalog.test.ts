import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImageCatalog, loadImageCatalog } from './catalog.ts';
import { parseImageReference, type ImageReference } from './reference.ts';

const ref = (s: string) => parseImageReference(s) as ImageReference;
const dir = mkdtempSync(path.join(tmpdir(), 'kemu-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the built-in image catalogue', () => {
  const catalog = loadImageCatalog();
  it.each(['nginx', 'nginx:1.14.2', 'nginx:1.16.1', 'nginx:1.7.9', 'nginx:1.25', 'busybox:1.28', 'redis', 'httpd:2.4', 'postgres:16', 'mysql:5.6', 'alpine:3.20', 'ubuntu:22.04', 'python:3.12-slim', 'node:20-alpine',
    'registry.k8s.io/pause:3.10', 'registry.k8s.io/e2e-test-images/agnhost:2.40', 'gcr.io/google-samples/kubernetes-bootcamp:v1', 'jocatalin/kubernetes-bootcamp:v2', 'hashicorp/http-echo'])(
    '%s exists',
    (image) => expect(catalog.lookup(ref(image))).toEqual({ kind: 'found', private: false }),
  );

  it('knows the tags the docs use as mistakes are missing', () => {
    expect(catalog.lookup(ref('nginx:1.161'))).toEqual({ kind: 'missing', private: false });
    expect(catalog.lookup(ref('gcr.io/google-samples/kubernetes-bootcamp:v10'))).toEqual({ kind: 'missing', private: false });
  });

  it('a repository it does not list is unknown (it pulls), and any digest of a listed one exists', () => {
    expect(catalog.lookup(ref('example.com/team/app:1'))).toEqual({ kind: 'unknown' });
    expect(catalog.lookup(ref(`nginx@sha256:${'c'.repeat(64)}`)).kind).toBe('found');
  });
});

describe('--image-catalog files', () => {
  it('merge over the built-in one: YAML, short names, added tags, private, digests', () => {
    const file = path.join(dir, 'extra.yaml');
    writeFileSync(file, [
      'repositories:',
      '  nginx:',
      '    tags: ["1.161"]',
      '  example.com/team/app:',
      '    tags: [v1]',
      '    private: true',
      '    digests: ["sha256:' + 'd'.repeat(64) + '"]',
      '  myorg/anything: {}',
    ].join('\n'));
    const catalog = loadImageCatalog([file]);
    expect(catalog.lookup(ref('nginx:1.161')).kind).toBe('found');
    expect(catalog.lookup(ref('nginx:1.14.2')).kind).toBe('found');
    expect(catalog.lookup(ref('example.com/team/app:v1'))).toEqual({ kind: 'found', private: true });
    expect(catalog.lookup(ref('example.com/team/app:v2'))).toEqual({ kind: 'missing', private: true });
    expect(catalog.lookup(ref(`example.com/team/app@sha256:${'e'.repeat(64)}`)).kind).toBe('missing');
    expect(catalog.lookup(ref(`example.com/team/app@sha256:${'d'.repeat(64)}`)).kind).toBe('found');
    // No tags listed: every tag exists.
    expect(catalog.lookup(ref('docker.io/myorg/anything:whatever')).kind).toBe('found');
  });

  it('a later file can mark a listed repository private without listing its tags again', () => {
    const catalog = new ImageCatalog().add({ repositories: { redis: { tags: ['7'] } } }).add({ repositories: { 'docker.io/library/redis': { private: true } } });
    expect(catalog.lookup(ref('redis:7'))).toEqual({ kind: 'found', private: true });
  });

  it('a bad file is refused with its name', () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, '{"repositories": {"nginx:1.25": {}}}');
    expect(() => loadImageCatalog([file])).toThrow(`${file}: "nginx:1.25" is not a repository name`);
    writeFileSync(file, '{"repos": {}}');
    expect(() => loadImageCatalog([file])).toThrow(/expected an object with "repositories"/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseImageReference } from './reference.ts';

const norm = (s: string) => {
  const r = parseImageReference(s);
  return 'error' in r ? `error: ${r.error}` : r.normalized;
};

describe('parseImageReference (as containerd normalises)', () => {
  it.each([
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx:1.161', 'docker.io/library/nginx:1.161'],
    ['library/nginx:1.25', 'docker.io/library/nginx:1.25'],
    ['index.docker.io/library/busybox', 'docker.io/library/busybox:latest'],
    ['docker.io/nginx:1.14.2', 'docker.io/library/nginx:1.14.2'],
    ['jocatalin/kubernetes-bootcamp:v2', 'docker.io/jocatalin/kubernetes-bootcamp:v2'],
    ['gcr.io/google-samples/kubernetes-bootcamp:v1', 'gcr.io/google-samples/kubernetes-bootcamp:v1'],
    ['localhost:5000/app', 'localhost:5000/app:latest'],
    ['localhost/app:1', 'localhost/app:1'],
    [`nginx@sha256:${'a'.repeat(64)}`, `docker.io/library/nginx@sha256:${'a'.repeat(64)}`],
    [`nginx:1.25@sha256:${'b'.repeat(64)}`, `docker.io/library/nginx:1.25@sha256:${'b'.repeat(64)}`],
  ])('%s → %s', (image, want) => expect(norm(image)).toBe(want));

  it('splits registry, path, tag and digest', () => {
    expect(parseImageReference('registry.k8s.io/e2e-test-images/agnhost:2.40')).toMatchObject({
      domain: 'registry.k8s.io',
      path: 'e2e-test-images/agnhost',
      repository: 'registry.k8s.io/e2e-test-images/agnhost',
      tag: '2.40',
    });
  });

  it('refuses what the reference grammar refuses, in its words', () => {
    expect(norm('Nginx')).toBe('error: invalid reference format: repository name (library/Nginx) must be lowercase');
    expect(norm('nginx:')).toBe('error: invalid reference format');
    expect(norm('nginx::1')).toBe('error: invalid reference format');
    expect(norm('nginx@sha256:abc')).toBe('error: invalid reference format');
    expect(norm(`nginx@sha256:${'a'.repeat(40)}`)).toBe('error: invalid checksum digest length');
    expect(norm('-nginx')).toBe('error: invalid reference format');
    expect(norm('')).toBe('error: invalid reference format');
  });
});

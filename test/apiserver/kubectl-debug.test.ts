// kubectl debug against a pod: kemu does not serve pods/ephemeralcontainers, and its 404 carries
// details as Kubernetes' does, so kubectl 1.32 reports the missing subresource instead of panicking on
// a nil details (debug.go reads details.name to tell a missing subresource from a missing pod).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

let api: InProcessApiserver;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  api = await startInProcessApiserver('kemu-debug-');
  env = kubectlEnv(api.dir, api.kubeconfig);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const res = await api.srv.app.inject({ method: 'POST', url: '/api/v1/namespaces/default/pods', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(pod) });
  expect(res.statusCode).toBe(201);
});
afterAll(async () => api?.close());

describe('kubectl debug', () => {
  it('says ephemeral containers are not served, without a panic', async () => {
    const r = await runKubectl(env, ['debug', 'target', '--image=busybox']);
    expect(r.stderr).not.toContain('panic');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: ephemeral containers are disabled for this cluster (error from server: "the server could not find the requested resource")');
  });

  it('a missing pod is the pod NotFound, with its details', async () => {
    const r = await runKubectl(env, ['debug', 'nope', '--image=busybox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): pods "nope" not found');
  });

  it('every 404 body carries details: {} for a path that is not served, name and kind for a missing object', async () => {
    for (const url of ['/api/v1/namespaces/default/pods/target/ephemeralcontainers', '/api/v1/widgets', '/apis/bogus.example.com/v1', '/openapi/v2', '/nope']) {
      const res = await api.srv.app.inject({ method: 'GET', url });
      expect([url, res.statusCode, res.json()]).toEqual([url, 404, expect.objectContaining({ reason: 'NotFound', details: {}, message: 'the server could not find the requested resource' })]);
    }
    const missing = await api.srv.app.inject({ method: 'GET', url: '/apis/apps/v1/namespaces/default/deployments/nope' });
    expect(missing.json()).toMatchObject({ reason: 'NotFound', details: { name: 'nope', group: 'apps', kind: 'deployments' } });
  });
});

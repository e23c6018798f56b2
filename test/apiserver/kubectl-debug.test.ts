// kubectl debug against a pod: pods/ephemeralcontainers is served (get, patch, update) as in Kubernetes 1.31,
// only spec.ephemeralContainers changes through it, and existing ephemeral containers cannot be changed or
// removed. Every NotFound carries details as Kubernetes' does: kubectl 1.32 reads details.name from a 404
// here, and panicked on a nil details before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

let api: InProcessApiserver;
let env: NodeJS.ProcessEnv;
const POD = '/api/v1/namespaces/default/pods/target';
const EPH = `${POD}/ephemeralcontainers`;

interface PodLike {
  metadata: { resourceVersion: string; labels?: Record<string, string>; managedFields?: Array<{ subresource?: string }> };
  spec: { containers: unknown[]; ephemeralContainers?: Array<Record<string, unknown>> };
}

async function req(method: 'GET' | 'PATCH' | 'PUT', url: string, body?: unknown, type = 'application/strategic-merge-patch+json') {
  const res = await api.srv.app.inject({ method, url, ...(body === undefined ? {} : { headers: { 'content-type': type }, payload: JSON.stringify(body) }) });
  return { status: res.statusCode, json: res.json() as Record<string, unknown> };
}

beforeAll(async () => {
  api = await startInProcessApiserver('kemu-debug-');
  env = kubectlEnv(api.dir, api.kubeconfig);
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target', labels: { app: 't' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const res = await api.srv.app.inject({ method: 'POST', url: '/api/v1/namespaces/default/pods', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(pod) });
  expect(res.statusCode).toBe(201);
});
afterAll(async () => api?.close());

describe('kubectl debug', () => {
  it('adds an ephemeral container to the pod', async () => {
    const r = await runKubectl(env, ['debug', 'target', '--image=busybox', '--target=c', '--', 'sleep', '3600']);
    expect(r.stderr).not.toContain('panic');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/Targeting container "c"\. .*\nDefaulting debug container name to debugger-\w+\.\n$/);
    const pod = (await req('GET', POD)).json as unknown as PodLike;
    expect(pod.spec.ephemeralContainers).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^debugger-/), image: 'busybox', command: ['sleep', '3600'], targetContainerName: 'c', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }),
    ]);
    expect(pod.metadata.labels).toEqual({ app: 't' });
    expect(pod.metadata.managedFields?.some((m) => m.subresource === 'ephemeralcontainers')).toBe(true);
  });

  it('a missing pod is the pod NotFound, with its details', async () => {
    const r = await runKubectl(env, ['debug', 'nope', '--image=busybox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): pods "nope" not found');
  });
});

describe('pods/ephemeralcontainers', () => {
  it('a pod cannot be created with ephemeral containers', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'eph' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ephemeralContainers: [{ name: 'e', image: 'busybox' }] } };
    const res = await api.srv.app.inject({ method: 'POST', url: '/api/v1/namespaces/default/pods', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(pod) });
    expect([res.statusCode, res.json().message]).toEqual([422, 'Pod "eph" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create']);
  });

  it('GET is the pod', async () => {
    const r = await req('GET', EPH);
    expect([r.status, r.json.kind, (r.json.metadata as { name: string }).name]).toEqual([200, 'Pod', 'target']);
  });

  it('changes nothing but spec.ephemeralContainers', async () => {
    const r = await req('PATCH', EPH, { metadata: { labels: { app: 'changed' } }, spec: { containers: [{ name: 'c', image: 'other' }], ephemeralContainers: [{ name: 'e2', image: 'busybox' }] } });
    expect(r.status).toBe(200);
    const pod = r.json as unknown as PodLike;
    expect(pod.metadata.labels).toEqual({ app: 't' });
    expect(pod.spec.containers).toEqual([expect.objectContaining({ name: 'c', image: 'nginx' })]);
    expect(pod.spec.ephemeralContainers?.map((c) => c.name)).toEqual([expect.stringMatching(/^debugger-/), 'e2']);
  });

  it('refuses to change or remove an existing ephemeral container, and fields an ephemeral container may not set', async () => {
    const pod = (await req('GET', POD)).json as unknown as PodLike & { apiVersion: string; kind: string };
    const changed = structuredClone(pod);
    (changed.spec.ephemeralContainers as Array<Record<string, unknown>>)[1] = { name: 'e2', image: 'alpine' };
    const put = await req('PUT', EPH, changed, 'application/json');
    expect([put.status, put.json.reason, put.json.message]).toEqual([422, 'Invalid', expect.stringContaining('spec.ephemeralContainers[e2]: Forbidden: existing ephemeral containers "e2" may not be changed')]);
    const removed = await req('PATCH', EPH, [{ op: 'remove', path: '/spec/ephemeralContainers/1' }], 'application/json-patch+json');
    expect([removed.status, removed.json.message]).toEqual([422, expect.stringContaining('spec.ephemeralContainers: Forbidden: existing ephemeral containers "e2" may not be removed')]);
    const ports = await req('PATCH', EPH, { spec: { ephemeralContainers: [{ name: 'e3', image: 'busybox', ports: [{ containerPort: 80 }], targetContainerName: 'nope' }] } });
    expect([ports.status, ports.json.message]).toEqual([
      422,
      expect.stringMatching(/spec\.ephemeralContainers\[2\]\.targetContainerName: Not found: "nope".*spec\.ephemeralContainers\[2\]\.ports: Forbidden: cannot be set for an Ephemeral Container/),
    ]);
    const dup = await req('PATCH', EPH, { spec: { ephemeralContainers: [{ name: 'c', image: 'busybox' }] } });
    expect([dup.status, dup.json.message]).toEqual([422, expect.stringContaining('spec.ephemeralContainers[2].name: Duplicate value: "c"')]);
  });

  it('every 404 body carries details: {} for a path that is not served, name and kind for a missing object', async () => {
    for (const url of [`${POD}/bogus`, '/api/v1/widgets', '/apis/bogus.example.com/v1', '/openapi/v4', '/nope']) {
      const res = await api.srv.app.inject({ method: 'GET', url });
      expect([url, res.statusCode, res.json()]).toEqual([url, 404, expect.objectContaining({ reason: 'NotFound', details: {}, message: 'the server could not find the requested resource' })]);
    }
    const missing = await req('PATCH', '/api/v1/namespaces/default/pods/nope/ephemeralcontainers', { spec: {} });
    expect(missing.json).toMatchObject({ reason: 'NotFound', details: { name: 'nope', kind: 'pods' } });
    const deploy = await api.srv.app.inject({ method: 'GET', url: '/apis/apps/v1/namespaces/default/deployments/nope' });
    expect(deploy.json()).toMatchObject({ reason: 'NotFound', details: { name: 'nope', group: 'apps', kind: 'deployments' } });
  });
});

// kubectl auth can-i / auth whoami against an in-process kube-apiserver: kemu allows everything and every
// caller is the cluster admin; the reviews are answered on create and never stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

let apiserver: InProcessApiserver;
let url: string;
let env: NodeJS.ProcessEnv;

const kubectl = (...args: string[]) => runKubectl(env, args);

async function post(p: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  apiserver = await startInProcessApiserver('kemu-auth-');
  url = apiserver.url;
  env = kubectlEnv(apiserver.dir, apiserver.kubeconfig);
}, 30_000);
afterAll(async () => apiserver?.close());

describe('auth reviews', () => {
  it('kubectl auth can-i create pods prints yes', async () => {
    const r = await kubectl('auth', 'can-i', 'create', 'pods');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('yes');
    expect(r.code).toBe(0);
    const any = await kubectl('auth', 'can-i', 'delete', 'deployments.apps', '-n', 'kube-system');
    expect(any.stdout.trim()).toBe('yes');
  });

  it('kubectl auth whoami prints the admin user and groups', async () => {
    const r = await kubectl('auth', 'whoami');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ATTRIBUTE\s+VALUE/);
    expect(r.stdout).toMatch(/Username\s+kubernetes-admin/);
    expect(r.stdout).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
  });

  it('discovery lists both, create-only and cluster-scoped', async () => {
    const r = await kubectl('api-resources', '--api-group=authorization.k8s.io');
    expect(r.stdout).toMatch(/selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview/);
    const a = await kubectl('api-resources', '--api-group=authentication.k8s.io', '-o', 'wide');
    expect(a.stdout).toMatch(/selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview\s+create/);
  });

  it('a review is echoed with status and not stored; list and get are 405, a spec without attributes is 422', async () => {
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'secrets', namespace: 'default' } } };
    const r = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: 'SelfSubjectAccessReview', spec: review.spec, status: { allowed: true } });
    expect((r.body.metadata as { resourceVersion?: string }).resourceVersion).toBeUndefined();
    const list = await fetch(`${url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`);
    expect(list.status).toBe(405);
    const bad = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: {} });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    const who = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', {});
    expect(who.status).toBe(201);
    expect(who.body.status).toEqual({ userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } });
  });
});

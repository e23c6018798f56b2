// kubectl auth can-i (--list) / auth whoami against an in-process kube-apiserver: kemu allows everything and every
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

  it('kubectl auth can-i --list prints the cluster-admin rules', async () => {
    const r = await kubectl('auth', 'can-i', '--list');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/), expect.stringMatching(/^\s+\[\*\]\s+\[\]\s+\[\*\]$/)]);
  });

  it('discovery lists them, create-only and cluster-scoped', async () => {
    const r = await kubectl('api-resources', '--api-group=authorization.k8s.io');
    expect(r.stdout).toMatch(/selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview/);
    expect(r.stdout).toMatch(/selfsubjectrulesreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectRulesReview/);
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

  it('a rules review is 201 with the cluster-admin rules and an empty spec; no namespace is a 400', async () => {
    const p = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
    const r = await post(p, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} });
    expect(r.body.status).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
    expect((r.body.metadata as { resourceVersion?: string }).resourceVersion).toBeUndefined();
    const none = await post(p, { spec: {} });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'no namespace on request' });
    expect((await fetch(`${url}${p}`)).status).toBe(405);
  });
});

// kubectl auth can-i (--list) / auth whoami against an in-process kube-apiserver: without an authorizer
// everything is allowed (AlwaysAllow) and a server without authentication treats every request as system:unsecured (in system:masters), as the insecure port did; with one, kubectl
// prints what it decides. The reviews are answered on create and never stored.
import type { Authorizer } from '@kemu/apiserver';
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
    expect(r.stdout).toMatch(/Username\s+system:unsecured/);
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
    expect(who.body.status).toEqual({ userInfo: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] } });
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

  it('kubectl auth can-i prints no, with the reason, and exits 1 when the authorizer does not allow', async () => {
    const asked: string[][] = [];
    const fake: Authorizer = {
      name: 'fake',
      authorize: (a) => {
        asked.push([a.verb, a.apiGroup, a.resource, a.subresource, a.namespace, a.name]);
        if (a.resource === 'nodes') return { decision: 'deny', reason: 'nodes are off limits' };
        if (a.resource === 'pods') return { decision: 'allow', reason: '' };
        return { decision: 'noOpinion', reason: '' };
      },
      rulesFor: () => ({
        resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: [] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: true,
        evaluationError: 'one authorizer cannot list rules',
      }),
    };
    apiserver.srv.ctx.authorizer = fake;
    try {
      const no = await kubectl('auth', 'can-i', 'delete', 'nodes/n1');
      expect(no.stdout.trim()).toBe('no - nodes are off limits');
      expect(no.code).toBe(1);
      const none = await kubectl('auth', 'can-i', 'get', 'secrets', '-n', 'kube-system');
      expect(none.stdout.trim()).toBe('no');
      expect(none.code).toBe(1);
      const yes = await kubectl('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'team-a');
      expect(yes.stdout.trim()).toBe('yes');
      // kubectl sends its current namespace even for a cluster-scoped resource.
      expect(asked).toEqual([
        ['delete', '', 'nodes', '', 'default', 'n1'],
        ['get', '', 'secrets', '', 'kube-system', ''],
        ['get', '', 'pods', 'log', 'team-a', ''],
      ]);
      const list = await kubectl('auth', 'can-i', '--list');
      expect(list.code).toBe(0);
      expect(list.stderr).toBe('Warning: the list may be incomplete: one authorizer cannot list rules\n');
      const lines = list.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^pods\s+\[\]\s+\[\]\s+\[get list\]$/), expect.stringMatching(/^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/)]);
    } finally {
      apiserver.srv.ctx.authorizer = undefined;
    }
  });
});

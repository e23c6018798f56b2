// The review APIs answered from the request's user and a fake authorizer: what the status says, what the
// authorizer was asked, and Kubernetes' refusals.
import { StatusError } from '@kemu/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserInfo } from '../authn/user.ts';
import type { Attributes, AuthorizationResult, Authorizer, RulesResult } from '../authz/types.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { handleRest } from './rest.ts';
import { parseTarget } from './target.ts';
import type { ApiRequest, ResourceTarget } from './request.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

const jane: UserInfo = { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'scopes.example.com': ['a', 'b'] } };

/** Answers from a table keyed "verb resource" (or "verb path"), remembering what it was asked. */
function fakeAuthorizer(answers: Record<string, AuthorizationResult>, rules?: RulesResult): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  const a: Authorizer & { asked: Attributes[] } = {
    name: 'fake',
    asked,
    authorize(attrs) {
      asked.push(attrs);
      return answers[`${attrs.verb} ${attrs.resourceRequest ? attrs.resource : attrs.path}`] ?? { decision: 'noOpinion', reason: '' };
    },
  };
  if (rules) a.rulesFor = () => rules;
  return a;
}

async function post(path: string, body: unknown, user?: UserInfo): Promise<{ code: number; body: Record<string, any> }> {
  const target = parseTarget(path) as ResourceTarget;
  const req: ApiRequest = { method: 'POST', target, query: new URLSearchParams(), headers: {}, contentType: 'application/json', body: structuredClone(body) };
  if (user) req.user = user;
  try {
    const r = await handleRest(srv.ctx, req);
    return { code: r.code, body: r.body as Record<string, any> };
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, body: e.toStatus() as unknown as Record<string, any> };
    throw e;
  }
}

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SAR = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const LSAR = (ns: string) => `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`;
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

function withAuthorizer<T>(a: Authorizer | undefined, f: () => Promise<T>): Promise<T> {
  srv.ctx.authorizer = a;
  return f().finally(() => {
    srv.ctx.authorizer = undefined;
  });
}

describe('SelfSubjectAccessReview', () => {
  it('asks the authorizer as the caller; allow, deny and no opinion fill allowed, denied and reason', async () => {
    const fake = fakeAuthorizer({
      'get pods': { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "view/default" of ClusterRole "view" to User "jane"' },
      'delete nodes': { decision: 'deny', reason: 'nodes are sacred', evaluationError: 'half a policy' },
    });
    await withAuthorizer(fake, async () => {
      const allowed = await post(SSAR, { spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } } }, jane);
      expect(allowed.code).toBe(201);
      expect(allowed.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "view/default" of ClusterRole "view" to User "jane"' });
      expect(fake.asked[0]).toEqual({
        user: jane,
        verb: 'get',
        resourceRequest: true,
        path: '',
        apiGroup: '',
        apiVersion: '*',
        resource: 'pods',
        subresource: '',
        namespace: 'default',
        name: '',
      });
      const denied = await post(SSAR, { spec: { resourceAttributes: { verb: 'delete', resource: 'nodes', name: 'n1' } } }, jane);
      expect(denied.body.status).toEqual({ allowed: false, denied: true, reason: 'nodes are sacred', evaluationError: 'half a policy' });
      const sel = await post(SSAR, { spec: { resourceAttributes: { verb: 'delete', resource: 'nodes', labelSelector: { rawSelector: 'a in (' } } } }, jane);
      expect(sel.body.status.evaluationError).toBe('half a policy; spec.resourceAttributes.labelSelector ignored due to parse error');
      fake.asked.pop();
      const none = await post(SSAR, { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } }, jane);
      expect(none.body.status).toEqual({ allowed: false });
      expect(fake.asked[2]).toMatchObject({ resourceRequest: false, path: '/healthz', verb: 'get', user: jane });
    });
  });

  it('without an authorizer everything is allowed; without a user the admin asks', async () => {
    const r = await post(SSAR, { spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } } });
    expect(r.body.status).toEqual({ allowed: true });
    const fake = fakeAuthorizer({});
    await withAuthorizer(fake, () => post(SSAR, { spec: { resourceAttributes: { verb: 'list', resource: 'pods' } } }));
    expect(fake.asked[0]?.user).toEqual({ username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('both kinds of attributes, or a selector with both or neither forms, is 422 with Kubernetes\' words', async () => {
    const both = await post(SSAR, { spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } } });
    expect(both.code).toBe(422);
    expect(both.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    const sel = await post(SSAR, { spec: { resourceAttributes: { verb: 'list', resource: 'pods', labelSelector: {}, fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } } } });
    expect(sel.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes.fieldSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements, spec.resourceAttributes.labelSelector.requirements: Required value: when spec.resourceAttributes.labelSelector is specified, requirements or rawSelector is required]',
    );
  });
});

describe('SubjectAccessReview', () => {
  const review = (spec: Record<string, unknown>) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });

  it('asks about spec.user, groups, uid and extra, not the caller', async () => {
    const fake = fakeAuthorizer({ 'create deployments': { decision: 'allow', reason: '' } });
    await withAuthorizer(fake, async () => {
      const spec = {
        resourceAttributes: { namespace: 'ns1', verb: 'create', group: 'apps', version: 'v1', resource: 'deployments' },
        user: 'bob',
        groups: ['team'],
        uid: 'u-9',
        extra: { 'scopes.example.com': ['x'] },
      };
      const r = await post(SAR, review(spec), jane);
      expect(r.code).toBe(201);
      expect(r.body).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec, status: { allowed: true } });
      expect(r.body.metadata.creationTimestamp).toEqual(expect.any(String));
      expect(fake.asked[0]).toMatchObject({ user: { username: 'bob', uid: 'u-9', groups: ['team'], extra: { 'scopes.example.com': ['x'] } }, apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns1' });
    });
  });

  it('a NoOpinion chain: not allowed, not denied, the reasons joined', async () => {
    const fake = fakeAuthorizer({ 'get secrets': { decision: 'noOpinion', reason: 'Everything is forbidden.\nRBAC: no rule' } });
    const r = await withAuthorizer(fake, () => post(SAR, review({ resourceAttributes: { verb: 'get', resource: 'secrets' }, groups: ['system:unauthenticated'] })));
    expect(r.body.status).toEqual({ allowed: false, reason: 'Everything is forbidden.\nRBAC: no rule' });
  });

  it('no user and no group, no attributes, or metadata: 422 with every cause', async () => {
    const r = await post(SAR, { spec: {} });
    expect(r.code).toBe(422);
    expect(r.body.message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' },
      { reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' },
    ]);
    const named = await post(SAR, { metadata: { name: 'x' }, spec: { user: 'bob', nonResourceAttributes: { path: '/', verb: 'get' } } });
    expect(named.code).toBe(422);
    expect(named.body.message).toMatch(/^SubjectAccessReview\.authorization\.k8s\.io "" is invalid: metadata: Invalid value: .*: must be empty$/);
  });
});

describe('LocalSubjectAccessReview', () => {
  const review = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata, spec });

  it('is answered in the URL namespace, with the namespace in metadata', async () => {
    const fake = fakeAuthorizer({ 'list pods': { decision: 'allow', reason: 'ok' } });
    const r = await withAuthorizer(fake, () => post(LSAR('team-a'), review({ user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'pods' } })));
    expect(r.code).toBe(201);
    expect(r.body.metadata.namespace).toBe('team-a');
    expect(r.body.status).toEqual({ allowed: true, reason: 'ok' });
    expect(fake.asked[0]).toMatchObject({ namespace: 'team-a', user: { username: 'bob' } });
  });

  it('another namespace in the spec, non-resource attributes, or a name: 422 with Kubernetes\' words', async () => {
    const other = await post(LSAR('team-a'), review({ user: 'bob', resourceAttributes: { namespace: 'team-b', verb: 'list', resource: 'pods' } }));
    expect(other.code).toBe(422);
    expect(other.body.message).toBe('LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team-b": must match metadata.namespace');
    const unset = await post(LSAR('team-a'), review({ user: 'bob', resourceAttributes: { verb: 'list', resource: 'pods' } }));
    expect(unset.body.message).toBe('LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "": must match metadata.namespace');
    const nonRes = await post(LSAR('team-a'), review({ user: 'bob', nonResourceAttributes: { path: '/metrics', verb: 'get' } }));
    expect(nonRes.body.message).toBe(
      'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/metrics", Verb:"get"}: disallowed on this kind of request',
    );
    const named = await post(LSAR('team-a'), review({ user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' } }, { name: 'x' }));
    expect(named.body.message).toMatch(/metadata: Invalid value: .*: must be empty except for namespace$/);
  });

  it('posted without a namespace in the URL: 400, as any namespaced create', async () => {
    const r = await post('/apis/authorization.k8s.io/v1/localsubjectaccessreviews', review({ user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods' } }));
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('the server could not find the requested resource: create of a namespaced resource needs a namespace in the URL');
  });

  it('a body naming another namespace than the URL is a 400', async () => {
    const r = await post(LSAR('team-a'), review({ user: 'bob', resourceAttributes: { namespace: 'team-b', verb: 'get', resource: 'pods' } }, { namespace: 'team-b' }));
    expect(r.code).toBe(400);
    expect(r.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
  });
});

describe('SelfSubjectRulesReview', () => {
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } };

  it('lists the authorizer\'s rules for the caller, empty lists left out as Go does', async () => {
    let askedFor: [UserInfo, string] | undefined;
    const fake: Authorizer = {
      name: 'fake',
      authorize: () => ({ decision: 'noOpinion', reason: '' }),
      rulesFor: (user, ns) => {
        askedFor = [user, ns];
        return {
          resourceRules: [
            { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
            { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
          ],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
          incomplete: true,
          evaluationError: 'node authorizer does not support user rule resolution',
        };
      },
    };
    const r = await withAuthorizer(fake, () => post(SSRR, review, jane));
    expect(r.code).toBe(201);
    expect(askedFor).toEqual([jane, 'default']);
    expect(r.body.status).toEqual({
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
  });

  it('an authorizer that cannot list rules: empty and incomplete; none at all: AlwaysAllow\'s "*"', async () => {
    const r = await withAuthorizer(fakeAuthorizer({}), () => post(SSRR, review, jane));
    expect(r.body.status).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: true });
    const all = await post(SSRR, review, jane);
    expect(all.body.status).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });
});

describe('SelfSubjectReview', () => {
  it('returns the request\'s user: username, uid, groups, extra', async () => {
    const r = await post(SSR, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, jane);
    expect(r.code).toBe(201);
    expect(r.body.status).toEqual({ userInfo: { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { 'scopes.example.com': ['a', 'b'] } } });
    const anon = await post(SSR, {}, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(anon.body.status).toEqual({ userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });
});

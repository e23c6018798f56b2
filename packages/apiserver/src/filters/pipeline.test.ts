// The authn → audit → impersonation → authz stages as a client sees them: 401 for bad credentials, 403 with
// Kubernetes' words, impersonation checked with the impersonate verb, and a WebSocket watch held to the same rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AuthenticationError, type Authenticator } from '../authn/types.ts';
import type { UserInfo } from '../authn/user.ts';
import type { Attributes, Authorizer } from '../authz/types.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

const USERS: Record<string, UserInfo> = {
  admin: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
  jane: { username: 'jane', groups: ['system:authenticated'] },
  boss: { username: 'boss', groups: ['system:authenticated'] },
};

// Bearer <name> is that user; Bearer bad is a bad credential; no header is anonymous.
const authenticator: Authenticator = {
  name: 'test',
  authenticate(req) {
    const h = req.headers.authorization;
    if (h === undefined) return { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };
    const user = USERS[h.replace(/^Bearer /, '')];
    if (!user) throw new AuthenticationError('invalid bearer token');
    return { user };
  },
};

const seen: Attributes[] = [];
// admin: everything; jane: list pods in default; boss: may impersonate user jane and group devs.
const authorizer: Authorizer = {
  name: 'test',
  authorize(a) {
    seen.push(a);
    if (a.user.groups.includes('system:masters')) return { decision: 'allow', reason: '' };
    if (a.user.username === 'jane' && a.resource === 'pods' && a.verb === 'list' && a.namespace === 'default') return { decision: 'allow', reason: '' };
    if (a.user.username === 'boss' && a.verb === 'impersonate' && ((a.resource === 'users' && a.name === 'jane') || (a.resource === 'groups' && a.name === 'devs'))) return { decision: 'allow', reason: '' };
    if (a.user.username === 'system:anonymous' && a.path === '/version') return { decision: 'allow', reason: '' };
    if (a.resource === 'selfsubjectreviews' && a.verb === 'create') return { decision: 'allow', reason: '' };
    if (a.user.username === 'system:serviceaccount:ns1:robot' && a.resource === 'pods') return { decision: 'allow', reason: '' };
    return { decision: 'noOpinion', reason: 'no rule' };
  },
};

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer({ authentication: { authenticator }, authorizer });
});
afterAll(async () => {
  await srv.close();
});

const get = (url: string, headers: Record<string, string> = {}) => srv.app.inject({ method: 'GET', url, headers });

describe('authentication', () => {
  it('refuses a bad credential with 401 Unauthorized, even though anonymous requests are allowed', async () => {
    const res = await get('/version', { authorization: 'Bearer bad' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    expect(res.headers['cache-control']).toBe('no-cache, private');
  });

  it('lets an anonymous request through to authorization', async () => {
    expect((await get('/version')).statusCode).toBe(200);
    expect((await get('/api/v1/namespaces/default/secrets')).statusCode).toBe(403);
  });
});

describe('authorization', () => {
  it('allows what the authorizer allows and forbids the rest in Kubernetes words', async () => {
    expect((await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer jane' })).statusCode).toBe(200);
    const res = await get('/api/v1/namespaces/kube-system/pods', { authorization: 'Bearer jane' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      reason: 'Forbidden',
      code: 403,
      message: 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "kube-system": no rule',
      details: { kind: 'pods' },
    });
    const named = await get('/apis/apps/v1/namespaces/default/deployments/web/scale', { authorization: 'Bearer jane' });
    expect(named.json().message).toBe('deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments/scale" in API group "apps" in the namespace "default": no rule');
    const node = await get('/api/v1/nodes', { authorization: 'Bearer jane' });
    expect(node.json().message).toBe('nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope: no rule');
    const path = await get('/metrics', { authorization: 'Bearer jane' });
    expect(path.json().message).toBe('forbidden: User "jane" cannot get path "/metrics": no rule');
  });

  it('decides before the resource is looked up: an unknown resource is 403 for the unauthorized, 404 for the allowed', async () => {
    expect((await get('/apis/nope.example.com/v1/things', { authorization: 'Bearer jane' })).statusCode).toBe(403);
    expect((await get('/apis/nope.example.com/v1/things', { authorization: 'Bearer admin' })).statusCode).toBe(404);
  });

  it('authorizes a watch as verb watch', async () => {
    seen.length = 0;
    const res = await get('/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1', { authorization: 'Bearer jane' });
    expect(res.statusCode).toBe(403);
    expect(seen.at(-1)).toMatchObject({ verb: 'watch', resource: 'pods', namespace: 'default' });
  });
});

describe('impersonation', () => {
  it('acts as the impersonated user when the impersonate verb allows it', async () => {
    seen.length = 0;
    const res = await srv.app.inject({
      method: 'POST',
      url: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      headers: { authorization: 'Bearer admin', 'impersonate-user': 'someone', 'impersonate-group': 'devs', 'content-type': 'application/json' },
      payload: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(res.statusCode).toBe(201);
    expect(seen.map((a) => [a.verb, a.resource, a.name])).toEqual([['impersonate', 'users', 'someone'], ['impersonate', 'groups', 'devs'], ['create', 'selfsubjectreviews', '']]);
    expect(seen[2]?.user).toEqual({ username: 'someone', groups: ['devs', 'system:authenticated'] });
  });

  it('refuses an impersonation the authorizer does not allow, naming it', async () => {
    const res = await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer boss', 'impersonate-user': 'admin' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('users "admin" is forbidden: User "boss" cannot impersonate resource "users" in API group "" at the cluster scope: no rule');
    const group = await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer boss', 'impersonate-user': 'jane', 'impersonate-group': 'system:masters' });
    expect(group.statusCode).toBe(403);
    expect(group.json().message).toContain('cannot impersonate resource "groups"');
  });

  it('authorizes the request itself as the impersonated user', async () => {
    expect((await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer boss', 'impersonate-user': 'jane' })).statusCode).toBe(200);
    expect((await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer boss' })).statusCode).toBe(403);
  });

  it('impersonates a ServiceAccount as serviceaccounts in its namespace, with its groups', async () => {
    seen.length = 0;
    const res = await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer admin', 'impersonate-user': 'system:serviceaccount:ns1:robot' });
    expect(res.statusCode).toBe(200);
    expect(seen[0]).toMatchObject({ verb: 'impersonate', resource: 'serviceaccounts', namespace: 'ns1', name: 'robot', apiGroup: '' });
    expect(seen[1]?.user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated']);
  });

  it('refuses groups without a user with 400', async () => {
    const res = await get('/api/v1/namespaces/default/pods', { authorization: 'Bearer admin', 'impersonate-group': 'devs' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('without impersonating a user');
  });
});

describe('WebSocket watches', () => {
  it('are authenticated and authorized like any request', async () => {
    const address = await srv.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `${address.replace('http', 'ws')}/api/v1/namespaces/kube-system/pods?watch=true`;
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => undefined);
      });
    expect(await status({ authorization: 'Bearer bad' })).toBe(401);
    expect(await status({ authorization: 'Bearer jane' })).toBe(403);
    expect(await status({ authorization: 'Bearer admin' })).toBe(101);
  });
});

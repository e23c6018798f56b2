import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyPem } from '@kemu/pki';
import { waitFor } from '@kemu/base/testing/processes';
import { registryLookups } from '../authn/lookups.ts';
import { AUTHN_FLAGS, buildAuthenticator, type AuthnFlagValues } from '../authn/options.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const defaults = Object.fromEntries(Object.entries(AUTHN_FLAGS).map(([k, v]) => [k, v.default])) as unknown as AuthnFlagValues;
let srv: ApiServer;

function payload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}
const post = (url: string, body: unknown) => srv.app.inject({ method: 'POST', url, payload: body as object, headers: { 'content-type': 'application/json' } });

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kemu-tokenrequest-'));
  writeFileSync(join(dir, 'sa.key'), privateKeyPem(await generatePrivateKey()));
  srv = await startMemoryApiServer();
  const built = buildAuthenticator(
    { ...defaults, 'service-account-issuer': [ISSUER], 'service-account-key-file': [join(dir, 'sa.key')], 'service-account-signing-key-file': join(dir, 'sa.key'), 'service-account-max-token-expiration': 48 * 3600_000 },
    registryLookups(srv.ctx.registry),
    undefined,
    { tokenSuccessCacheTtlMs: 200 },
  );
  srv.ctx.tokenIssuer = built.tokenIssuer;
  srv.ctx.tokenAuthenticator = built.tokenAuthenticator;
  await post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'default' } });
});
afterAll(async () => srv?.close());

describe('serviceaccounts/<name>/token', () => {
  it('issues a bound RS256 token for the API audiences, valid an hour, that TokenReview accepts', async () => {
    const res = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(res.statusCode).toBe(201);
    const tr = res.json();
    expect(tr).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'default', namespace: 'default' }, spec: { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null } });
    const claims = payload(tr.status.token);
    expect(claims.iss).toBe(ISSUER);
    expect(claims.sub).toBe('system:serviceaccount:default:default');
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
    expect(JSON.parse(Buffer.from(tr.status.token.split('.')[0], 'base64url').toString()).alg).toBe('RS256');

    const review = await post('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: tr.status.token } });
    expect(review.statusCode).toBe(201);
    expect(review.json().status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:default:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] },
      audiences: [ISSUER],
    });
  });

  it('refuses less than 10 minutes with Kubernetes\' 422, caps at the maximum with a warning', async () => {
    const short = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { expirationSeconds: 60 } });
    expect(short.statusCode).toBe(422);
    expect(short.json().message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    const long = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { expirationSeconds: 7 * 86400 } });
    expect(long.statusCode).toBe(201);
    expect(long.json().spec.expirationSeconds).toBe(48 * 3600);
    expect(long.headers.warning).toBe('299 - "requested expiration of 604800 seconds shortened to 172800 seconds"');
  });

  it('binds to a pod of that ServiceAccount; the token dies with the pod', async () => {
    await post('/api/v1/namespaces/default/pods', { metadata: { name: 'p1' }, spec: { serviceAccountName: 'default', containers: [{ name: 'c', image: 'nginx' }] } });
    const pod = (await srv.app.inject({ method: 'GET', url: '/api/v1/namespaces/default/pods/p1' })).json();
    const res = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { audiences: ['vault'], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: pod.metadata.uid } } });
    expect(res.statusCode).toBe(201);
    const token = res.json().status.token as string;
    expect(payload(token)['kubernetes.io']).toMatchObject({ namespace: 'default', pod: { name: 'p1', uid: pod.metadata.uid } });
    const ok = await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token, audiences: ['vault'] } });
    expect(ok.json().status).toMatchObject({ authenticated: true, audiences: ['vault'], user: { extra: { 'authentication.kubernetes.io/pod-name': ['p1'] } } });
    const wrongAud = await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token } });
    expect(wrongAud.json().status).toEqual({ user: {}, error: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]` });

    const mismatch = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: 'other' } } });
    expect(mismatch.statusCode).toBe(409);
    const cm = await post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } });
    expect(cm.json().message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');

    await srv.app.inject({ method: 'DELETE', url: '/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0' });
    // A success is believed for the token cache's TTL (10 s in Kubernetes, 200 ms here), then the pod is missed.
    const gone = await waitFor('the token refused', async () => {
      const st = (await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token, audiences: ['vault'] } })).json().status;
      return st.authenticated ? undefined : st;
    }, 5_000);
    expect(gone).toEqual({ user: {}, error: 'service account token has been invalidated' });
  });

  it('answers 404 for a missing ServiceAccount', async () => {
    const res = await post('/api/v1/namespaces/default/serviceaccounts/nobody/token', { spec: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('serviceaccounts "nobody" not found');
  });
});

describe('tokenreviews', () => {
  it('requires a token, and reports a garbage one as not authenticated', async () => {
    const empty = await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe('token is required for TokenReview in authentication');
    const bad = await post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'garbage' } });
    expect(bad.statusCode).toBe(201);
    expect(bad.json()).toMatchObject({ kind: 'TokenReview', spec: { token: 'garbage' }, status: { user: {}, error: 'invalid bearer token' } });
    expect(bad.json().status.authenticated).toBeUndefined();
  });
});

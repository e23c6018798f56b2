// `kubectl create token` against an apiserver that has a ServiceAccount signing key: the token it prints is a
// bound ServiceAccount JWT the server's own TokenReview accepts, and kubectl prints Kubernetes' refusal for a
// too-short duration.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyPem } from '@kemu/pki';
import { registryLookups } from '../../packages/apiserver/src/authn/lookups.ts';
import { AUTHN_FLAGS, buildAuthenticator, type AuthnFlagValues } from '../../packages/apiserver/src/authn/options.ts';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const defaults = Object.fromEntries(Object.entries(AUTHN_FLAGS).map(([k, v]) => [k, v.default])) as unknown as AuthnFlagValues;
let api: InProcessApiserver;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  api = await startInProcessApiserver('kemu-create-token-');
  const key = path.join(api.dir, 'sa.key');
  writeFileSync(key, privateKeyPem(await generatePrivateKey({ algo: 'ecdsa', size: 256 })));
  const built = buildAuthenticator(
    { ...defaults, 'service-account-issuer': [ISSUER], 'service-account-key-file': [key], 'service-account-signing-key-file': key },
    registryLookups(api.srv.ctx.registry),
  );
  api.srv.ctx.tokenIssuer = built.tokenIssuer;
  api.srv.ctx.tokenAuthenticator = built.tokenAuthenticator;
  env = kubectlEnv(api.dir, api.kubeconfig);
  const sa = await runKubectl(env, ['create', 'serviceaccount', 'default']);
  expect(sa.code, sa.stderr).toBe(0);
}, 60_000);
afterAll(async () => api?.close());

const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

describe('kubectl create token', () => {
  it('prints an ES256 token for the ServiceAccount that TokenReview accepts', async () => {
    const out = await runKubectl(env, ['create', 'token', 'default']);
    expect(out.code, out.stderr).toBe(0);
    const token = out.stdout.trim();
    expect(claims(token)).toMatchObject({ iss: ISSUER, aud: [ISSUER], sub: 'system:serviceaccount:default:default' });
    const review = await api.srv.app.inject({ method: 'POST', url: '/apis/authentication.k8s.io/v1/tokenreviews', payload: { spec: { token } } });
    expect(review.json().status.user.username).toBe('system:serviceaccount:default:default');
  });

  it('passes --duration and --audience', async () => {
    const out = await runKubectl(env, ['create', 'token', 'default', '--duration=20m', '--audience=vault']);
    expect(out.code, out.stderr).toBe(0);
    const c = claims(out.stdout.trim());
    expect(c.aud).toEqual(['vault']);
    expect((c.exp as number) - (c.iat as number)).toBe(1200);
  });

  it('shows Kubernetes\' refusal of a duration under 10 minutes', async () => {
    const out = await runKubectl(env, ['create', 'token', 'default', '--duration=60s']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
  });
});

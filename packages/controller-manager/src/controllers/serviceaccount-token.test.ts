import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { R, type Secret, type ServiceAccount } from '@kemu/api';
import { CA_PROFILE, certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, templateFromProfile } from '@kemu/pki';
import { readPublicKeys } from '@kemu/pki';
import { legacyServiceAccountAuthenticator } from '@kemu/apiserver/authn/service-account';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { serviceAccountTokenDescriptor } from './serviceaccount-token.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

let dir: string;
let keyFile: string;
let caFile: string;
let caPem: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-satoken-'));
  keyFile = path.join(dir, 'sa.key');
  writeFileSync(keyFile, privateKeyPem(await generatePrivateKey()));
  const caKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  caPem = certificatePem(await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'kubernetes' }, publicKey: caKey, isCA: true, nowMs: Date.now() }), { selfKey: caKey }));
  caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, caPem);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(...objs: (ServiceAccount | Secret)[]): Promise<FakeEnv> {
  const env = fakeContext([`--service-account-private-key-file=${keyFile}`, `--root-ca-file=${caFile}`]);
  envs.push(env);
  for (const o of objs) await env.api.create(o.kind === 'Secret' ? R.secrets : R.serviceaccounts, o.metadata.namespace, o);
  const c = serviceAccountTokenDescriptor.create(env.ctx);
  env.informers.start(env.abort.signal);
  void c?.run(env.ctx);
  await settle();
  return env;
}

const sa = (name: string): ServiceAccount => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'default' } });
const tokenSecret = (name: string, saName: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default', annotations: { 'kubernetes.io/service-account.name': saName } },
  type: 'kubernetes.io/service-account-token',
});
const decode = (s: Secret, k: string) => Buffer.from(s.data?.[k] ?? '', 'base64').toString('utf8');
const filled = (env: FakeEnv, name: string) =>
  vi.waitFor(async () => {
    const s = await env.api.get<Secret>(R.secrets, 'default', name);
    expect(s.data?.token).toBeDefined();
    return s;
  });

describe('serviceaccount-token-controller', () => {
  it('fills a token Secret with a legacy token, ca.crt and namespace that the apiserver authenticates', async () => {
    const env = await start(sa('builder'), tokenSecret('builder-token', 'builder'));
    const secret = await filled(env, 'builder-token');
    const account = await env.api.get<ServiceAccount>(R.serviceaccounts, 'default', 'builder');
    expect(decode(secret, 'ca.crt')).toBe(caPem);
    expect(decode(secret, 'namespace')).toBe('default');
    expect(secret.metadata.annotations).toEqual({ 'kubernetes.io/service-account.name': 'builder', 'kubernetes.io/service-account.uid': account.metadata.uid });
    const token = decode(secret, 'token');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: expect.any(String) });
    expect(decodeJwt(token)).toEqual({
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'default',
      'kubernetes.io/serviceaccount/secret.name': 'builder-token',
      'kubernetes.io/serviceaccount/service-account.name': 'builder',
      'kubernetes.io/serviceaccount/service-account.uid': account.metadata.uid,
      sub: 'system:serviceaccount:default:builder',
    });
    // kube-apiserver's legacy validator (--service-account-key-file, --service-account-lookup) accepts it.
    const authn = legacyServiceAccountAuthenticator({
      keys: readPublicKeys(keyFile),
      apiAudiences: [],
      lookup: true,
      lookups: {
        getServiceAccount: (ns, n) => env.api.get(R.serviceaccounts, ns, n).catch(() => undefined),
        getSecret: (ns, n) => env.api.get(R.secrets, ns, n).catch(() => undefined),
        getPod: () => undefined,
        getNode: () => undefined,
      },
    });
    const res = await authn.authenticateToken(token);
    expect(res?.user).toMatchObject({ username: 'system:serviceaccount:default:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:default'] });
  });

  it('keeps an existing token, deletes token Secrets whose ServiceAccount is gone, and one naming no account', async () => {
    const env = await start(sa('builder'), tokenSecret('builder-token', 'builder'), tokenSecret('ghost-token', 'ghost'));
    const first = decode(await filled(env, 'builder-token'), 'token');
    expect(env.api.all<Secret>(R.secrets, 'default').map((s) => s.metadata.name)).toEqual(['builder-token']);
    const cur = await env.api.get<Secret>(R.secrets, 'default', 'builder-token');
    await env.api.update(R.secrets, 'default', { ...cur, metadata: { ...cur.metadata, labels: { touched: 'yes' } } });
    await settle();
    expect(decode(await env.api.get<Secret>(R.secrets, 'default', 'builder-token'), 'token')).toBe(first);
    await env.api.delete(R.serviceaccounts, 'default', 'builder');
    await vi.waitFor(() => expect(env.api.all<Secret>(R.secrets, 'default')).toEqual([]));
  });

  it('drops a deleted token Secret from its ServiceAccount', async () => {
    const env = await start({ ...sa('builder'), secrets: [{ name: 'builder-token' }, { name: 'other' }] }, tokenSecret('builder-token', 'builder'));
    await filled(env, 'builder-token');
    await env.api.delete(R.secrets, 'default', 'builder-token');
    await vi.waitFor(async () => expect((await env.api.get<ServiceAccount>(R.serviceaccounts, 'default', 'builder')).secrets).toEqual([{ name: 'other' }]));
  });

  it('does not start without --service-account-private-key-file, and fails on an unreadable key', () => {
    const env = fakeContext();
    expect(serviceAccountTokenDescriptor.create(env.ctx)).toBeUndefined();
    expect(() => serviceAccountTokenDescriptor.create(fakeContext([`--service-account-private-key-file=${dir}/none.key`]).ctx)).toThrow(
      `error reading key for service account token controller: open ${dir}/none.key: no such file or directory`,
    );
  });
});

import crypto from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { generatePrivateKey, privateKeyPem, publicKeyPem } from '@kemu/pki';
import { bearerTokenAuthenticator, tokenUnion } from './bearer-token.ts';
import { keyId, readPublicKeys, readSigningKey, type SigningKey, type VerifyKey } from '@kemu/pki';
import { boundClaims, legacyClaims, signClaims } from '@kemu/pki';
import { boundServiceAccountAuthenticator, legacyServiceAccountAuthenticator, type ServiceAccountLookups } from './service-account.ts';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const dir = mkdtempSync(join(tmpdir(), 'kemu-sa-'));
const obj = (kind: string, name: string, uid: string, ns?: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, uid, ...(ns ? { namespace: ns } : {}) },
  ...extra,
});

class Store implements ServiceAccountLookups {
  objs = new Map<string, KubeObject>();
  put(o: KubeObject) {
    this.objs.set(`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
  }
  drop(kind: string, ns: string, name: string) {
    this.objs.delete(`${kind}/${ns}/${name}`);
  }
  getServiceAccount = (ns: string, n: string) => this.objs.get(`ServiceAccount/${ns}/${n}`);
  getSecret = (ns: string, n: string) => this.objs.get(`Secret/${ns}/${n}`);
  getPod = (ns: string, n: string) => this.objs.get(`Pod/${ns}/${n}`);
  getNode = (n: string) => this.objs.get(`Node//${n}`);
}

let rsa: SigningKey;
let ec: SigningKey;
let keys: VerifyKey[];
let store: Store;
const sa = obj('ServiceAccount', 'builder', 'sa-uid-1', 'ci');

beforeAll(async () => {
  const rsaKey = await generatePrivateKey({ algo: 'rsa', size: 2048 });
  const ecKey = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  writeFileSync(join(dir, 'sa.key'), privateKeyPem(rsaKey));
  writeFileSync(join(dir, 'ec.key'), privateKeyPem(ecKey, 'pkcs8'));
  // One file with two keys: a public RSA key and a private EC key (after an EC PARAMETERS block).
  writeFileSync(join(dir, 'both.pem'), publicKeyPem(rsaKey) + '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n' + privateKeyPem(ecKey));
  rsa = readSigningKey(join(dir, 'sa.key'));
  ec = readSigningKey(join(dir, 'ec.key'));
  keys = readPublicKeys(join(dir, 'both.pem'));
  store = new Store();
  store.put(sa);
});

const bound = (o: { apiAudiences?: string[]; now?: () => number } = {}) =>
  boundServiceAccountAuthenticator([ISSUER, 'https://old-issuer'], { keys, apiAudiences: o.apiAudiences ?? [ISSUER], lookups: store, ...(o.now ? { now: o.now } : {}) });

async function mint(signer: SigningKey, extra: Partial<Parameters<typeof boundClaims>[0]> = {}): Promise<string> {
  const { claims } = boundClaims({ issuer: ISSUER, serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 3600, nowMs: Date.now(), ...extra });
  return signClaims(signer, claims);
}

describe('ServiceAccount keys', () => {
  it('reads several keys of a file, and computes the kid as Kubernetes (base64url SHA-256 of the PKIX DER)', () => {
    expect(keys.map((k) => k.kid)).toEqual([rsa.kid, ec.kid]);
    const der = crypto.createPublicKey(rsa.key).export({ format: 'der', type: 'spki' });
    expect(keyId(rsa.key)).toBe(crypto.createHash('sha256').update(der).digest('base64url'));
    expect(rsa.alg).toBe('RS256');
    expect(ec.alg).toBe('ES256');
  });

  it('refuses a file without keys, and an unreadable one', () => {
    writeFileSync(join(dir, 'junk.pem'), 'not a key\n');
    expect(() => readPublicKeys(join(dir, 'junk.pem'))).toThrow('data does not contain any valid RSA or ECDSA public keys');
    expect(() => readPublicKeys(join(dir, 'nope.pem'))).toThrow('no such file or directory');
    expect(() => readSigningKey(join(dir, 'junk.pem'))).toThrow('data does not contain a valid RSA or ECDSA private key');
  });
});

describe('bound ServiceAccount tokens', () => {
  it('authenticates RS256 and ES256 tokens as system:serviceaccount:<ns>:<name> with the credential id', async () => {
    for (const signer of [rsa, ec]) {
      const token = await mint(signer);
      const [h] = token.split('.');
      expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: signer.alg, kid: signer.kid });
      const res = await bound().authenticateToken(token);
      expect(res?.user.username).toBe('system:serviceaccount:ci:builder');
      expect(res?.user.uid).toBe('sa-uid-1');
      expect(res?.user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:ci']);
      expect(res?.user.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^JTI=[0-9a-f-]{36}$/);
      expect(res?.audiences).toEqual([ISSUER]);
    }
  });

  it('adds pod-name/pod-uid (and node) for a pod-bound token, and refuses it once the pod is gone or replaced', async () => {
    const pod = obj('Pod', 'web-0', 'pod-uid-1', 'ci');
    store.put(pod);
    const token = await mint(rsa, { pod, node: obj('Node', 'n1', 'node-uid-1') });
    const res = await bound().authenticateToken(token);
    expect(res?.user.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['web-0'],
      'authentication.kubernetes.io/pod-uid': ['pod-uid-1'],
      'authentication.kubernetes.io/node-name': ['n1'],
      'authentication.kubernetes.io/node-uid': ['node-uid-1'],
    });
    store.put(obj('Pod', 'web-0', 'pod-uid-2', 'ci'));
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('pod UID (pod-uid-2) does not match service account pod ref claim (pod-uid-1)');
    store.drop('Pod', 'ci', 'web-0');
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('service account token has been invalidated');
  });

  it('refuses a Secret-bound token once its Secret is gone', async () => {
    const secret = obj('Secret', 's1', 'sec-uid', 'ci');
    store.put(secret);
    const token = await mint(ec, { secret });
    expect(await bound().authenticateToken(token)).toBeDefined();
    store.drop('Secret', 'ci', 's1');
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('service account token has been invalidated');
  });

  it('refuses tampered, expired, future, wrong-audience tokens and those of a deleted or recreated ServiceAccount', async () => {
    const token = await mint(rsa);
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${s}`;
    await expect(async () => bound().authenticateToken(tampered)).rejects.toThrow('square/go-jose: error in cryptographic primitive');

    const later = Date.now() + 3600_000 + 61_000;
    await expect(async () => bound({ now: () => later }).authenticateToken(token)).rejects.toThrow('service account token has expired');
    await expect(async () => bound({ now: () => Date.now() - 120_000 }).authenticateToken(token)).rejects.toThrow('service account token is not valid yet');

    await expect(async () => bound({ apiAudiences: ['https://other'] }).authenticateToken(token)).rejects.toThrow(
      `token audiences ["${ISSUER}"] is invalid for the target audiences ["https://other"]`,
    );
    expect((await bound().authenticateToken(token, ['vault', ISSUER]))?.audiences).toEqual([ISSUER]);

    store.put(obj('ServiceAccount', 'builder', 'sa-uid-2', 'ci'));
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('service account UID (sa-uid-2) does not match claim (sa-uid-1)');
    store.drop('ServiceAccount', 'ci', 'builder');
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('serviceaccounts "builder" not found');
    store.put(sa);
  });

  it('leaves tokens of other issuers to other authenticators; the bearer source calls them invalid', async () => {
    const other = await signClaims(rsa, boundClaims({ issuer: 'https://evil', serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 3600, nowMs: Date.now() }).claims);
    expect(await bound().authenticateToken(other)).toBeUndefined();
    const req = { headers: { authorization: `Bearer ${other}` }, peerCertificates: [] };
    await expect(async () => bearerTokenAuthenticator(tokenUnion([bound()])).authenticate(req)).rejects.toThrow('invalid bearer token');
  });

  it('refuses a token signed by a key it does not know', async () => {
    const stranger = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const token = await mint({ key: stranger, kid: keyId(stranger), alg: 'ES256' });
    await expect(async () => bound().authenticateToken(token)).rejects.toThrow('invalid signature, no keys found');
  });
});

describe('legacy Secret-based tokens', () => {
  it('authenticate while their Secret holds them and the ServiceAccount is the same, not after', async () => {
    const token = await signClaims(rsa, legacyClaims(sa, 'builder-token-x'));
    store.put(obj('Secret', 'builder-token-x', 'sec-1', 'ci', { type: 'kubernetes.io/service-account-token', data: { token: Buffer.from(token).toString('base64') } }));
    const legacy = legacyServiceAccountAuthenticator({ keys, apiAudiences: [ISSUER], lookups: store, lookup: true });
    const res = await legacy.authenticateToken(token);
    expect(res?.user).toEqual({ username: 'system:serviceaccount:ci:builder', uid: 'sa-uid-1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'] });
    store.drop('Secret', 'ci', 'builder-token-x');
    await expect(async () => legacy.authenticateToken(token)).rejects.toThrow('Token has been invalidated');
    expect(await legacyServiceAccountAuthenticator({ keys, apiAudiences: [ISSUER], lookups: store, lookup: false }).authenticateToken(token)).toBeDefined();
    expect(await bound().authenticateToken(token)).toBeUndefined(); // not the bound issuer
  });
});

// In-process benchmark of ServiceAccount token authentication (JWT verification and the claim checks, no HTTP):
// S ServiceAccounts with one pod each, one bound token per pod (as a projected volume's), authenticated in
// random order by the bound-token authenticator alone (every request verifies its signature), then through
// the apiserver's 10 s success cache; prints p50/p99/max per request for both.
// usage: npm run bench -- sa-token-authn [--service-accounts 1000] [--requests 20000] [--key rsa|ecdsa] (--help lists the flags)
import { generateKeyPairSync } from 'node:crypto';
import type { KubeObject } from '@kemu/api';
import { boundServiceAccountAuthenticator, type ServiceAccountLookups } from '../packages/apiserver/src/authn/service-account.ts';
import { boundClaims, keyId, signClaims, type SigningKey } from '@kemu/pki';
import { cachedTokenAuthenticator } from '../packages/apiserver/src/authn/token-cache.ts';
import type { TokenAuthenticator } from '../packages/apiserver/src/authn/types.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';

const flags = benchFlags(
  'sa-token-authn',
  {
    'service-accounts': { type: 'int', default: 1000, usage: 'ServiceAccounts (one pod and one bound token each)' },
    requests: { type: 'int', default: 20_000, usage: 'authentications timed per mode' },
    key: { type: 'string', default: 'rsa', usage: 'the signing key: rsa (2048-bit, RS256, as kubeadm and the lab make sa.key) or ecdsa (P-256, ES256)' },
  },
  (f) => atLeast(f, 1, ['service-accounts', 'requests']) ?? oneOf(f, 'key', ['rsa', 'ecdsa']),
);

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const pair = flags.key === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer: SigningKey = { kid: keyId(pair.publicKey), key: pair.privateKey, alg: flags.key === 'rsa' ? 'RS256' : 'ES256' };

// The apiserver answers these lookups from its store; here they are maps, so the figures are the token work alone.
const sas = new Map<string, KubeObject>();
const pods = new Map<string, KubeObject>();
const tokens: string[] = [];
const now = Date.now();
for (let i = 0; i < flags['service-accounts']; i++) {
  const ns = `ns${i % 100}`;
  const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace: ns, name: `sa${i}`, uid: `sa-uid-${i}` } };
  const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name: `pod${i}`, uid: `pod-uid-${i}` } };
  sas.set(`${ns}/sa${i}`, sa);
  pods.set(`${ns}/pod${i}`, pod);
  const { claims } = boundClaims({ issuer: ISSUER, serviceAccount: sa, pod, audiences: [ISSUER], expirationSeconds: 3607, nowMs: now });
  tokens.push(await signClaims(signer, claims));
}
const lookups: ServiceAccountLookups = {
  getServiceAccount: (ns, name) => sas.get(`${ns}/${name}`),
  getSecret: () => undefined,
  getPod: (ns, name) => pods.get(`${ns}/${name}`),
  getNode: () => undefined,
};
const bound = boundServiceAccountAuthenticator([ISSUER], { keys: [{ kid: signer.kid, key: pair.publicKey }], apiAudiences: [ISSUER], lookups });

interface Figures {
  p50Us: number;
  p99Us: number;
  maxUs: number;
  perSecond: number;
}

async function run(authn: TokenAuthenticator): Promise<Figures> {
  const times = new Float64Array(flags.requests);
  let seed = 12345;
  const t0 = performance.now();
  for (let i = 0; i < flags.requests; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const token = tokens[seed % tokens.length] ?? '';
    const s = performance.now();
    const r = await authn.authenticateToken(token);
    times[i] = performance.now() - s;
    if (!r) throw new Error('a token did not authenticate');
  }
  const wall = performance.now() - t0;
  times.sort();
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0;
  const us = (ms: number) => Math.round(ms * 10_000) / 10;
  return { p50Us: us(pct(50)), p99Us: us(pct(99)), maxUs: us(times[times.length - 1] ?? 0), perSecond: Math.round(flags.requests / (wall / 1000)) };
}

const uncached = await run(bound);
const cached = cachedTokenAuthenticator(bound);
for (const t of tokens) await cached.authenticateToken(t); // fills the cache, as the first request of each token does
const warm = await run(cached);
const line = (what: string, f: Figures) => console.log(`${what}: p50 ${f.p50Us} µs, p99 ${f.p99Us} µs, max ${f.maxUs} µs, ${f.perSecond}/s on one core`);
console.log(`ServiceAccount token authentication, ${flags['service-accounts']} ServiceAccounts, ${flags.requests} requests each, ${signer.alg}`);
line('signature verified on every request', uncached);
line('through the 10 s success cache', warm);
console.log(JSON.stringify({ bench: 'sa-token-authn', alg: signer.alg, serviceAccounts: flags['service-accounts'], uncached, cached: warm }));

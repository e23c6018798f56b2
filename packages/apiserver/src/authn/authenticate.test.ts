// The stage's contract, fuzzed as the request fuzz does: whatever the Authorization and WebSocket headers hold,
// the answer is a user or a 401 Status, never an exception (so never a 500).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toStatus } from '@kemu/api';
import { generatePrivateKey, privateKeyPem } from '@kemu/pki';
import { authenticateAuthnRequest } from './authenticate.ts';
import { AUTHN_FLAGS, buildAuthenticator, type AuthnFlagValues } from './options.ts';

const defaults = Object.fromEntries(Object.entries(AUTHN_FLAGS).map(([k, v]) => [k, v.default])) as unknown as AuthnFlagValues;
const dir = mkdtempSync(join(tmpdir(), 'kemu-authn-fuzz-'));

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe('the authentication stage', () => {
  it('answers 401 with the Unauthorized Status, or a user, for fuzzed credentials', async () => {
    writeFileSync(join(dir, 'sa.key'), privateKeyPem(await generatePrivateKey({ algo: 'ecdsa', size: 256 })));
    writeFileSync(join(dir, 'tokens.csv'), 'good,jane,1\n');
    const { authenticator } = buildAuthenticator(
      { ...defaults, 'token-auth-file': join(dir, 'tokens.csv'), 'service-account-issuer': ['https://k'], 'service-account-key-file': [join(dir, 'sa.key')], 'enable-bootstrap-token-auth': true },
      { getServiceAccount: () => undefined, getSecret: () => undefined, getPod: () => undefined, getNode: () => { throw new Error('store down'); } },
    );
    const bad = await authenticateAuthnRequest(authenticator, { headers: { authorization: 'Bearer nope' }, peerCertificates: [] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(toStatus(bad.error)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });

    const rnd = seeded(42);
    const alphabet = 'aZ09.-_~+/=" ,:{}\\\u00e9\u0000\t';
    const pick = (n: number) => Array.from({ length: Math.floor(rnd() * n) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const jwtish = () => `${b64(pick(40))}.${b64(JSON.stringify({ iss: rnd() < 0.5 ? 'https://k' : 'kubernetes/serviceaccount', aud: rnd() < 0.5 ? pick(5) : [pick(5)], 'kubernetes.io': rnd() < 0.5 ? pick(5) : { pod: pick(3), node: { name: 'n' } } }))}.${pick(30)}`;
    for (let i = 0; i < 2000; i++) {
      const kind = Math.floor(rnd() * 5);
      const value = kind === 0 ? `Bearer ${jwtish()}` : kind === 1 ? `bearer ${pick(30)}` : kind === 2 ? `Bearer  ${pick(10)}` : kind === 3 ? `${pick(8)} ${pick(8)}` : `Bearer ${pick(6)}.${pick(16)}`;
      const headers: Record<string, string> = { authorization: value };
      if (rnd() < 0.3) Object.assign(headers, { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-protocol': `base64url.bearer.authorization.k8s.io.${rnd() < 0.5 ? b64(pick(20)) : pick(20)}${rnd() < 0.5 ? ', v4.channel.k8s.io' : ''}` });
      const out = await authenticateAuthnRequest(authenticator, { headers, peerCertificates: [] });
      if (!out.ok) expect(out.error.code).toBe(401);
      else expect(out.response.user.username).toMatch(/^(system:anonymous|jane)$/);
    }
  });
});

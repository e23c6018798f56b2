// verifyCompactJws against jose: every token jose signs for the algorithms ServiceAccount keys use verifies, and
// what jose would refuse (a changed byte anywhere, alg none or another family, a wrong curve, a short RSA key,
// crit, unencoded payloads, malformed parts) is refused.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { CompactSign } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifyCompactJws } from './jws-verify.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = { ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }), ES384: generateKeyPairSync('ec', { namedCurve: 'P-384' }), ES512: generateKeyPairSync('ec', { namedCurve: 'P-521' }) };
const RSA_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGS = ['ES256', 'ES384', 'ES512'];
const payload = new TextEncoder().encode(JSON.stringify({ iss: 'https://kubernetes.default.svc.cluster.local', sub: 'system:serviceaccount:default:robot' }));

const sign = (alg: string, key: KeyObject, header: Record<string, unknown> = {}) => new CompactSign(payload).setProtectedHeader({ alg, kid: 'k', ...header }).sign(key);
const keyFor = (alg: string) => (alg.startsWith('ES') ? ec[alg as keyof typeof ec] : rsa);
const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);

describe('verifyCompactJws', () => {
  it.each([...RSA_ALGS, ...EC_ALGS])('verifies what jose signs with %s, and refuses it with one byte changed in any part', async (alg) => {
    const { privateKey, publicKey } = keyFor(alg);
    const token = await sign(alg, privateKey);
    const allowed = alg.startsWith('ES') ? EC_ALGS : RSA_ALGS;
    expect(new TextDecoder().decode(verifyCompactJws(token, publicKey, allowed))).toBe(new TextDecoder().decode(payload));
    const [h, p, s] = token.split('.') as [string, string, string];
    for (const bad of [`${flip(h, 5)}.${p}.${s}`, `${h}.${flip(p, 7)}.${s}`, `${h}.${p}.${flip(s, 10)}`]) expect(() => verifyCompactJws(bad, publicKey, allowed)).toThrow();
  });

  it('refuses an alg the key does not allow, alg none, and another key family', async () => {
    const rs = await sign('RS256', rsa.privateKey);
    expect(() => verifyCompactJws(rs, rsa.publicKey, ['ES256'])).toThrow('not allowed');
    const [, p] = rs.split('.') as [string, string];
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    expect(() => verifyCompactJws(none, rsa.publicKey, RSA_ALGS)).toThrow('not allowed');
    // An EC token checked against the RSA key (a key confusion attempt) and an ES256 token against a P-384 key.
    const es = await sign('ES256', ec.ES256.privateKey);
    expect(() => verifyCompactJws(es, rsa.publicKey, [...RSA_ALGS, ...EC_ALGS])).toThrow('requires the curve');
    expect(() => verifyCompactJws(es, ec.ES384.publicKey, EC_ALGS)).toThrow('requires the curve');
  });

  it('refuses crit, unencoded payloads, RSA keys under 2048 bits and malformed tokens', async () => {
    expect(() => verifyCompactJws(`${Buffer.from(JSON.stringify({ alg: 'RS256', crit: ['exp'], exp: 1 })).toString('base64url')}.e30.AAAA`, rsa.publicKey, RSA_ALGS)).toThrow('crit');
    expect(() => verifyCompactJws(`${Buffer.from(JSON.stringify({ alg: 'RS256', b64: false })).toString('base64url')}.e30.AAAA`, rsa.publicKey, RSA_ALGS)).toThrow('unencoded');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weak = `${Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')}.e30.AAAA`;
    expect(() => verifyCompactJws(weak, small.publicKey, RSA_ALGS)).toThrow('2048');
    for (const bad of ['', 'a.b', 'a.b.c.d', '!!.e30.AAAA', `${Buffer.from('[1]').toString('base64url')}.e30.AAAA`, 'e30.e30.A']) expect(() => verifyCompactJws(bad, rsa.publicKey, RSA_ALGS)).toThrow();
  });
});

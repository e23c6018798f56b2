// Compact JWS verification (RFC 7515) on node:crypto's synchronous verify. jose v6 verifies through WebCrypto
// only, which on Node 20 costs ~175–215 µs per RS256 signature against ~26–36 µs here: an uncached
// ServiceAccount token pays it on every request (bench/sa-token-authn-bench.ts). Signing stays with jose. The
// rules are jose's for what ServiceAccount tokens use: the header's alg must be one the key allows, no `crit`
// or unencoded payloads, RSA keys of 2048 bits or more, ECDSA curves matching the alg.
import { constants, verify, type KeyObject } from 'node:crypto';

export class JwsVerificationError extends Error {
  override name = 'JwsVerificationError';
}

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
const B64URL = /^[A-Za-z0-9_-]*$/;

function b64url(part: string, what: string): Buffer {
  if (!B64URL.test(part) || part.length % 4 === 1) throw new JwsVerificationError(`${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

/** The payload of `token` when its signature verifies with `key` under one of `algorithms`; throws otherwise. */
export function verifyCompactJws(token: string, key: KeyObject, algorithms: readonly string[]): Uint8Array {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwsVerificationError('Invalid Compact JWS');
  const [h, p, s] = parts as [string, string, string];
  let header: unknown;
  try {
    header = JSON.parse(b64url(h, 'protected header').toString('utf8'));
  } catch {
    throw new JwsVerificationError('JWS Protected Header is invalid');
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) throw new JwsVerificationError('JWS Protected Header is invalid');
  const { alg, crit, b64 } = header as Record<string, unknown>;
  if (crit !== undefined) throw new JwsVerificationError('"crit" is not supported');
  if (b64 !== undefined && b64 !== true) throw new JwsVerificationError('unencoded payloads are not supported');
  if (typeof alg !== 'string' || !algorithms.includes(alg)) throw new JwsVerificationError('"alg" (Algorithm) Header Parameter value not allowed');
  const hash = HASH[alg.slice(2)];
  const family = alg.slice(0, 2);
  if (!hash) throw new JwsVerificationError('unsupported "alg"');
  const signature = b64url(s, 'signature');
  const input = Buffer.from(`${h}.${p}`, 'ascii');
  let params: Parameters<typeof verify>[2];
  if (family === 'RS' || family === 'PS') {
    if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new JwsVerificationError(`${alg} requires an RSA key of 2048 bits or larger`);
    params = family === 'PS' ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : key;
  } else if (family === 'ES') {
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVE[alg]) throw new JwsVerificationError(`${alg} requires the curve ${CURVE[alg] ?? '?'}`);
    params = { key, dsaEncoding: 'ieee-p1363' };
  } else {
    throw new JwsVerificationError('unsupported "alg"');
  }
  let ok = false;
  try {
    ok = verify(hash, input, params, signature);
  } catch {
    // A malformed signature (e.g. the wrong length for the curve) is a failed verification.
  }
  if (!ok) throw new JwsVerificationError('signature verification failed');
  return b64url(p, 'payload');
}

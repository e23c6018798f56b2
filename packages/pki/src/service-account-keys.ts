// Keys for ServiceAccount tokens, read as Kubernetes' keyutil does: --service-account-key-file holds any number of
// PEM blocks, each an RSA or ECDSA private key, public key or certificate (other blocks, e.g. EC PARAMETERS, are
// skipped); --service-account-signing-key-file holds one private key. The key id is Kubernetes' keyIDFromPublicKey:
// base64url (no padding) of the SHA-256 of the public key's PKIX DER.
import crypto, { type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodePem } from './pem.ts';
import { spkiDer } from './keys.ts';
import { goFileError } from '@kemu/base';

export class KeyFileError extends Error {}

export interface VerifyKey {
  kid: string;
  key: KeyObject;
}

export interface SigningKey {
  kid: string;
  key: KeyObject;
  alg: 'RS256' | 'ES256' | 'ES384' | 'ES512';
}

const usable = (k: KeyObject) => k.asymmetricKeyType === 'rsa' || k.asymmetricKeyType === 'ec';

export function keyId(key: KeyObject): string {
  return crypto.createHash('sha256').update(spkiDer(key)).digest('base64url');
}

function publicKeyOf(der: Buffer): KeyObject | undefined {
  const attempts: (() => KeyObject)[] = [
    () => crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs1' })),
    () => crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })),
    () => crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'sec1' })),
    () => crypto.createPublicKey({ key: der, format: 'der', type: 'spki' }),
    () => crypto.createPublicKey({ key: der, format: 'der', type: 'pkcs1' }),
    () => new crypto.X509Certificate(der).publicKey,
  ];
  for (const attempt of attempts) {
    try {
      const k = attempt();
      if (usable(k)) return k;
    } catch {
      // not this form
    }
  }
  return undefined;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new KeyFileError(goFileError('open', path, e));
  }
}

/** Every public key in a PEM file; throws KeyFileError when the file cannot be read or holds none. */
export function readPublicKeys(path: string): VerifyKey[] {
  const keys: VerifyKey[] = [];
  for (const block of decodePem(readText(path))) {
    const key = publicKeyOf(block.der);
    if (key) keys.push({ kid: keyId(key), key });
  }
  if (keys.length === 0) throw new KeyFileError(`error reading public key file ${path}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

const EC_ALG: Record<string, SigningKey['alg']> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** The signing key: RS256 for RSA, ES256/384/512 by curve for ECDSA, as Kubernetes' JWTTokenGenerator. */
export function readSigningKey(path: string): SigningKey {
  for (const block of decodePem(readText(path))) {
    for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
      let key: KeyObject;
      try {
        key = crypto.createPrivateKey({ key: block.der, format: 'der', type });
      } catch {
        continue;
      }
      if (key.asymmetricKeyType === 'rsa') return { kid: keyId(key), key, alg: 'RS256' };
      const alg = EC_ALG[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (key.asymmetricKeyType === 'ec' && alg) return { kid: keyId(key), key, alg };
    }
  }
  throw new KeyFileError(`failed to parse service-account-issuer-key-file: data does not contain a valid RSA or ECDSA private key`);
}

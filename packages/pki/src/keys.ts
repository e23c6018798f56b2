// Private and public keys: generated, read in every form cfssl and openssl write (PKCS#1 "RSA PRIVATE KEY",
// PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY" with or without openssl's "EC PARAMETERS" block before it), and
// written back as cfssl writes them (PKCS#1 for RSA, SEC1 for EC) or as openssl 3 does (PKCS#8).
import crypto, { type KeyObject, type webcrypto } from 'node:crypto';
import { promisify } from 'node:util';
import { decodePem } from './pem.ts';
import { PkiError } from './errors.ts';

export type KeySpec = { algo: 'rsa'; size: number } | { algo: 'ecdsa'; size: 256 | 384 | 521 };

/** cfssl's CSR JSON `"key": {"algo": "rsa", "size": 2048}`, the seed's choice for every key. */
export const RSA_2048: KeySpec = { algo: 'rsa', size: 2048 };

const CURVES = { 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' } as const;
const WEB_CURVES: Record<string, 'P-256' | 'P-384' | 'P-521'> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const generate = promisify(crypto.generateKeyPair);

/** A new private key; RSA generation runs on libuv's thread pool, so several can be made at once. */
export async function generatePrivateKey(spec: KeySpec = RSA_2048): Promise<KeyObject> {
  if (spec.algo === 'rsa') {
    if (spec.size < 2048) throw new PkiError(`RSA key size ${spec.size} is too small (at least 2048)`);
    return (await generate('rsa', { modulusLength: spec.size, publicExponent: 0x10001 })).privateKey;
  }
  return (await generate('ec', { namedCurve: CURVES[spec.size] })).privateKey;
}

/** Reads the first private key block of a PEM file; `what` names the file in errors. */
export function parsePrivateKeyPem(text: string, what = 'key'): KeyObject {
  for (const b of decodePem(text)) {
    try {
      switch (b.type) {
        case 'RSA PRIVATE KEY':
          return crypto.createPrivateKey({ key: b.der, format: 'der', type: 'pkcs1' });
        case 'PRIVATE KEY':
          return crypto.createPrivateKey({ key: b.der, format: 'der', type: 'pkcs8' });
        case 'EC PRIVATE KEY':
          return crypto.createPrivateKey({ key: b.der, format: 'der', type: 'sec1' });
        case 'ENCRYPTED PRIVATE KEY':
          throw new PkiError(`${what}: encrypted private keys are not supported (decrypt it with openssl pkey first)`);
      }
    } catch (e) {
      if (e instanceof PkiError) throw e;
      throw new PkiError(`${what}: the ${b.type} block does not parse: ${(e as Error).message}`);
    }
  }
  throw new PkiError(`${what}: no private key found (want an RSA PRIVATE KEY, PRIVATE KEY or EC PRIVATE KEY block)`);
}

/** Reads a public key: SPKI "PUBLIC KEY" (openssl rsa -pubout), PKCS#1 "RSA PUBLIC KEY", or a certificate's. */
export function parsePublicKeyPem(text: string, what = 'key'): KeyObject {
  for (const b of decodePem(text)) {
    try {
      switch (b.type) {
        case 'PUBLIC KEY':
          return crypto.createPublicKey({ key: b.der, format: 'der', type: 'spki' });
        case 'RSA PUBLIC KEY':
          return crypto.createPublicKey({ key: b.der, format: 'der', type: 'pkcs1' });
        case 'CERTIFICATE':
          return new crypto.X509Certificate(b.der).publicKey;
      }
    } catch (e) {
      throw new PkiError(`${what}: the ${b.type} block does not parse: ${(e as Error).message}`);
    }
  }
  throw new PkiError(`${what}: no public key found (want a PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE block)`);
}

/** PEM as cfssl writes a key (PKCS#1 for RSA, SEC1 for EC), or PKCS#8 as `openssl genrsa` 3.x does. */
export function privateKeyPem(key: KeyObject, form: 'cfssl' | 'pkcs8' = 'cfssl'): string {
  if (form === 'pkcs8') return key.export({ format: 'pem', type: 'pkcs8' }).toString();
  const type = key.asymmetricKeyType === 'rsa' ? 'pkcs1' : 'sec1';
  return key.export({ format: 'pem', type }).toString();
}

/** SPKI "PUBLIC KEY" PEM, as `openssl rsa -pubout` writes sa.pub. */
export function publicKeyPem(key: KeyObject): string {
  const pub = key.type === 'private' ? crypto.createPublicKey(key) : key;
  return pub.export({ format: 'pem', type: 'spki' }).toString();
}

/** SubjectPublicKeyInfo DER of a private or public key. */
export function spkiDer(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? crypto.createPublicKey(key) : key;
  return pub.export({ format: 'der', type: 'spki' });
}

/** True when both keys (private or public) hold the same public key. */
export function sameKey(a: KeyObject, b: KeyObject): boolean {
  return spkiDer(a).equals(spkiDer(b));
}

/** The WebCrypto algorithm a key signs with, as Go picks it: SHA-256 for RSA and P-256, SHA-384/512 for bigger curves. */
export type SigningAlgorithm = { name: 'RSASSA-PKCS1-v1_5'; hash: string } | { name: 'ECDSA'; namedCurve: string; hash: string };

export function signingAlgorithm(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  if (key.asymmetricKeyType === 'ec') {
    const curve = WEB_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new PkiError(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve ?? '(unknown)'}`);
    return { name: 'ECDSA', namedCurve: curve, hash: curve === 'P-256' ? 'SHA-256' : curve === 'P-384' ? 'SHA-384' : 'SHA-512' };
  }
  throw new PkiError(`unsupported key type ${key.asymmetricKeyType ?? '(unknown)'} (want RSA or ECDSA)`);
}

/** The key as a WebCrypto signing key (Node 20 has no KeyObject.toCryptoKey). */
export async function toSigningKey(key: KeyObject): Promise<webcrypto.CryptoKey> {
  const der = key.export({ format: 'der', type: 'pkcs8' });
  return crypto.webcrypto.subtle.importKey('pkcs8', der, signingAlgorithm(key), false, ['sign']);
}

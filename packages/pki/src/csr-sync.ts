// Synchronous reading of a PKCS#10 request, for callers that cannot await (the apiserver's validation, which
// Kubernetes runs synchronously with Go's x509.ParseCertificateRequest + CheckSignature). The signature is
// checked with node:crypto over the request's own CertificationRequestInfo bytes, never re-encoded ones.
import crypto, { type KeyObject } from 'node:crypto';
import { Pkcs10CertificateRequest } from './x509.ts';
import { fromName } from './name.ts';
import { PkiError } from './errors.ts';
import { requestedNames, type ParsedCsr } from './csr.ts';

/** Where the DER element at `at` starts, its header length and where it ends (short and long length forms). */
function derElement(der: Uint8Array, at: number): { start: number; head: number; end: number } {
  if (at + 2 > der.length) throw new PkiError('truncated DER element');
  let len = der[at + 1] ?? 0;
  let head = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > der.length) throw new PkiError('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (der[at + 2 + i] ?? 0);
    head += n;
  }
  if (at + head + len > der.length) throw new PkiError('truncated DER element');
  return { start: at, head, end: at + head + len };
}

/** The raw CertificationRequestInfo: the first element inside the outer SEQUENCE. */
function requestInfo(der: Uint8Array): Uint8Array {
  const outer = derElement(der, 0);
  const inner = derElement(der, outer.head);
  return der.subarray(inner.start, inner.end);
}

interface SignatureAlgorithm {
  name: string;
  hash?: { name: string };
  saltLength?: number;
}

/** True when the request's self-signature verifies under its own public key. */
export function csrSignatureValid(csr: Pkcs10CertificateRequest, publicKey: KeyObject): boolean {
  const alg = csr.signatureAlgorithm as SignatureAlgorithm;
  const hash = alg.name === 'Ed25519' || !alg.hash ? null : alg.hash.name.replace('SHA-', 'sha');
  const key: KeyObject | crypto.VerifyKeyObjectInput =
    alg.name === 'RSA-PSS' ? { key: publicKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: alg.saltLength ?? crypto.constants.RSA_PSS_SALTLEN_AUTO } : publicKey;
  try {
    return crypto.verify(hash, requestInfo(new Uint8Array(csr.rawData)), key, Buffer.from(csr.signature));
  } catch {
    return false;
  }
}

/** Go's CheckSignature error for a request whose signature does not verify, by key type. */
export function csrSignatureError(publicKey: KeyObject): string {
  switch (publicKey.asymmetricKeyType) {
    case 'ec':
      return 'x509: ECDSA verification failure';
    case 'ed25519':
      return 'x509: Ed25519 verification failure';
    default:
      return 'crypto/rsa: verification error';
  }
}

/**
 * A DER CERTIFICATE REQUEST parsed and its signature checked, synchronously. Throws PkiError naming `what`
 * when it does not parse, or with Go's CheckSignature message when the signature does not verify.
 */
export function parseCsrDerSync(der: Uint8Array, what = 'certificate request'): ParsedCsr {
  let csr: Pkcs10CertificateRequest;
  let publicKey: KeyObject;
  try {
    csr = new Pkcs10CertificateRequest(Buffer.from(der));
    publicKey = crypto.createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  } catch (e) {
    throw new PkiError(`${what}: does not parse: ${(e as Error).message}`);
  }
  if (!csrSignatureValid(csr, publicKey)) throw new PkiError(csrSignatureError(publicKey));
  return { subject: fromName(csr.subjectName), publicKey, ...requestedNames(csr), csr };
}

// PKCS#10 certificate signing requests: made as cfssl makes its `.csr` files (subject, and the hosts as a SAN
// extension request), and read back for a signer, which takes from a request only its subject, key and names.
import crypto, { webcrypto, type KeyObject } from 'node:crypto';
import { BasicConstraintsExtension, Pkcs10CertificateRequest, Pkcs10CertificateRequestGenerator, SubjectAlternativeNameExtension, type JsonGeneralName } from './x509.ts';
import { toName, fromName, type DistinguishedName } from './name.ts';
import { signingAlgorithm, spkiDer, toSigningKey } from './keys.ts';
import { splitHosts } from './cert.ts';
import { decodePem } from './pem.ts';
import { PkiError } from './errors.ts';

/** `isCA` asks for Basic Constraints CA:TRUE, as cfssl's -initca request does. */
export async function createCsr(subject: DistinguishedName, key: KeyObject, hosts: Iterable<string> = [], isCA = false): Promise<Pkcs10CertificateRequest> {
  const { dnsNames, ipAddresses } = splitHosts(hosts);
  const names: JsonGeneralName[] = [...dnsNames.map((value): JsonGeneralName => ({ type: 'dns', value })), ...ipAddresses.map((value): JsonGeneralName => ({ type: 'ip', value }))];
  const alg = signingAlgorithm(key);
  const publicKey = await webcrypto.subtle.importKey('spki', spkiDer(key), alg, true, ['verify']);
  return Pkcs10CertificateRequestGenerator.create({
    name: toName(subject),
    keys: { privateKey: await toSigningKey(key), publicKey },
    signingAlgorithm: { name: alg.name, hash: alg.hash },
    extensions: [...(isCA ? [new BasicConstraintsExtension(true, undefined, true)] : []), ...(names.length ? [new SubjectAlternativeNameExtension(names, false)] : [])],
  });
}

export interface ParsedCsr {
  subject: DistinguishedName;
  publicKey: KeyObject;
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  csr: Pkcs10CertificateRequest;
}

/** Reads a CERTIFICATE REQUEST (PEM, or DER as in a CertificateSigningRequest's spec.request) and checks its self-signature. */
export async function parseCsr(data: string | Uint8Array, what = 'certificate request'): Promise<ParsedCsr> {
  const text = typeof data === 'string' ? data : Buffer.from(data).toString('latin1');
  const isPem = typeof data === 'string' || text.includes('-----BEGIN');
  const der = isPem ? decodePem(text).find((b) => b.type === 'CERTIFICATE REQUEST' || b.type === 'NEW CERTIFICATE REQUEST')?.der : Buffer.from(data);
  if (!der) throw new PkiError(`${what}: no CERTIFICATE REQUEST block found`);
  let csr: Pkcs10CertificateRequest;
  try {
    csr = new Pkcs10CertificateRequest(Buffer.from(der));
  } catch (e) {
    throw new PkiError(`${what}: does not parse: ${(e as Error).message}`);
  }
  if (!(await csr.verify())) throw new PkiError(`${what}: the signature does not verify`);
  const publicKey = crypto.createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  return { subject: fromName(csr.subjectName), publicKey, ...requestedNames(csr), csr };
}

/** The subject alternative names a request asks for, by kind. */
export function requestedNames(csr: Pkcs10CertificateRequest): Pick<ParsedCsr, 'dnsNames' | 'ipAddresses' | 'emailAddresses' | 'uris'> {
  const out = { dnsNames: [] as string[], ipAddresses: [] as string[], emailAddresses: [] as string[], uris: [] as string[] };
  const san = csr.extensions.find((e): e is SubjectAlternativeNameExtension => e instanceof SubjectAlternativeNameExtension);
  for (const n of san?.names.items ?? []) {
    if (n.type === 'dns') out.dnsNames.push(n.value);
    else if (n.type === 'ip') out.ipAddresses.push(n.value);
    else if (n.type === 'email') out.emailAddresses.push(n.value);
    else if (n.type === 'url') out.uris.push(n.value);
  }
  return out;
}

/** The request as a PEM "CERTIFICATE REQUEST" block (what a CertificateSigningRequest's spec.request holds). */
export function csrPem(csr: Pkcs10CertificateRequest): string {
  return csr.toString('pem') + '\n';
}

// Test certificates: a CA and client certificates signed by it, made with @kemu/pki (ECDSA P-256, quick).
import type { PeerCertificate } from 'node:tls';
import { generatePrivateKey, issueCertificate, type Signer, type X509Certificate } from '@kemu/pki';
import type { AuthnRequest } from '../types.ts';

const DAY = 86_400_000;

export async function makeCa(cn: string, nowMs = Date.now()): Promise<Signer> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const cert = await issueCertificate(
    { subject: { CN: cn }, publicKey: key, isCA: true, keyUsages: ['keyCertSign', 'cRLSign', 'digitalSignature'], notBefore: new Date(nowMs - DAY), notAfter: new Date(nowMs + 365 * DAY) },
    { selfKey: key },
  );
  return { cert, key };
}

export async function makeClient(ca: Signer, cn: string, o: string[] = [], validity?: { notBefore: Date; notAfter: Date }): Promise<X509Certificate> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  return issueCertificate(
    { subject: { CN: cn, O: o }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], ...(validity ?? { notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) }) },
    ca,
  );
}

/** A request presenting `chain` (leaf first) as node's getPeerCertificate(true) would describe it. */
export function presenting(chain: X509Certificate[], headers: Record<string, string> = {}): AuthnRequest {
  const peers = chain.map((c) => ({ raw: Buffer.from(c.rawData) }) as unknown as PeerCertificate & { issuerCertificate?: PeerCertificate });
  for (let i = 0; i < peers.length - 1; i++) peers[i]!.issuerCertificate = peers[i + 1];
  return { headers: { ...headers }, peerCertificates: [], tls: { authorized: false, peer: peers[0] } };
}

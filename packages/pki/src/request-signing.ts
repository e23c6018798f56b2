// Kubernetes' local CSR signer (pkg/controller/certificates/authority, used by kube-controller-manager's csrsigning
// loops): the certificate for a certificate request carries the request's subject, key and every SAN it asked
// for, the usages the CertificateSigningRequest names (certificates.k8s.io key usage names), Basic Constraints
// CA:FALSE and nothing else the request asked for; it is back-dated, and never outlives its CA.
import crypto from 'node:crypto';
import { issueCertificate, type Signer } from './cert.ts';
import type { ParsedCsr } from './csr.ts';
import { EXT_KEY_USAGE_NAMES, EXT_KEY_USAGE_OIDS, KEY_USAGE_NAMES, type ExtKeyUsage, type KeyUsage } from './profile.ts';
import { PkiError } from './errors.ts';
import type { X509Certificate } from './x509.ts';

// Go's x509.ExtKeyUsage order, which the signer sorts the extended usages into.
const EKU_ORDER = Object.keys(EXT_KEY_USAGE_OIDS) as ExtKeyUsage[];

/**
 * A CertificateSigningRequest's usages (authority.keyUsagesFromStrings) as X.509 key usages and extended key usages,
 * the latter deduplicated and in Go's order.
 */
export function usagesFromKubernetes(usages: readonly string[]): { keyUsages: KeyUsage[]; extKeyUsages: ExtKeyUsage[] } {
  const keyUsages = new Set<KeyUsage>();
  const ext = new Set<ExtKeyUsage>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    const ku = KEY_USAGE_NAMES[u];
    const eku = EXT_KEY_USAGE_NAMES[u];
    if (ku) keyUsages.add(ku);
    else if (eku) ext.add(eku);
    else unrecognized.push(u);
  }
  // Go's %q of a string slice: ["a" "b"].
  if (unrecognized.length) throw new PkiError(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  return { keyUsages: [...keyUsages], extKeyUsages: EKU_ORDER.filter((e) => ext.has(e)) };
}

/** authority.PermissiveSigningPolicy, as the csrsigning controller fills it in. */
export interface RequestSigningPolicy {
  /** The certificate's lifetime (the requested or the maximum duration). */
  ttlMs: number;
  /** certificates.k8s.io usage names. */
  usages: readonly string[];
  /** NotBefore = now − backdate; a long-lived certificate's NotAfter is back-dated by as much (Kubernetes: 5 min). */
  backdateMs: number;
  /** A TTL below this is short-lived: its NotAfter is not back-dated (Kubernetes: 8 h). */
  shortMs: number;
  nowMs: number;
}

/** Go's %v of a time.Time in UTC ("2026-01-01 12:00:00 +0000 UTC"), as the signer's refusals print it. */
function goTime(d: Date): string {
  return `${d.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '')} +0000 UTC`;
}

/** 128 random bits as Kubernetes' signer draws them (kept positive). */
function serial128(): string {
  const b = crypto.randomBytes(16);
  b[0] = (b[0] ?? 0) & 0x7f || 0x01;
  return b.toString('hex');
}

/** Issues the certificate for a (signature-checked) request under `ca`, or throws PkiError with the signer's message. */
export async function signRequest(ca: Signer, req: ParsedCsr, p: RequestSigningPolicy): Promise<X509Certificate> {
  const { keyUsages, extKeyUsages } = usagesFromKubernetes(p.usages);
  const signerNotAfter = ca.cert.notAfter;
  const notBefore = new Date(p.nowMs - p.backdateMs);
  let notAfter = new Date(p.ttlMs < p.shortMs ? p.nowMs + p.ttlMs : p.nowMs + p.ttlMs - p.backdateMs);
  if (notAfter >= signerNotAfter) notAfter = signerNotAfter;
  if (notBefore >= signerNotAfter) throw new PkiError(`the signer has expired: NotAfter=${goTime(signerNotAfter)}`);
  if (p.nowMs >= signerNotAfter.getTime()) throw new PkiError(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(signerNotAfter)}`);
  return issueCertificate(
    {
      subject: req.subject,
      publicKey: req.publicKey,
      isCA: false,
      keyUsages,
      extKeyUsages,
      dnsNames: req.dnsNames,
      ipAddresses: req.ipAddresses,
      emailAddresses: req.emailAddresses,
      uris: req.uris,
      notBefore,
      notAfter,
      serialNumber: serial128(),
      // Go's CreateCertificate derives a Subject Key Identifier for CAs only.
      subjectKeyId: false,
    },
    ca,
  );
}

// Chain verification as Go's crypto/x509 Verify does it, with its error messages (what kubectl prints): the
// chain is built from the leaf up to one of the roots through the intermediates, each link's signature checked,
// every certificate inside its validity window, every issuer a CA allowed to sign certificates; then the
// leaf's extended key usage and, when asked, the host name or IP address against its SANs (never the CN).
import crypto from 'node:crypto';
import net from 'node:net';
import { BasicConstraintsExtension, ExtendedKeyUsageExtension, KeyUsageFlags, KeyUsagesExtension, SubjectAlternativeNameExtension, type X509Certificate } from './x509.ts';
import { EXT_KEY_USAGE_OIDS, type ExtKeyUsage, type KeyUsage } from './profile.ts';

export interface VerifyOptions {
  roots: readonly X509Certificate[];
  intermediates?: readonly X509Certificate[];
  /** Defaults to the current time. */
  nowMs?: number;
  /** An extended key usage the leaf must allow (a leaf without the extension allows any, as in Go). */
  usage?: ExtKeyUsage;
  /** A DNS name or IP address the leaf must name in its Subject Alternative Names. */
  host?: string;
}

export type VerifyResult = { ok: true; chain: X509Certificate[] } | { ok: false; reason: string };

const ANY_EKU = EXT_KEY_USAGE_OIDS.any;
const MAX_DEPTH = 10;

function node(cert: X509Certificate): crypto.X509Certificate {
  return new crypto.X509Certificate(Buffer.from(cert.rawData));
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function timeError(cert: X509Certificate, now: number): string | undefined {
  if (now < cert.notBefore.getTime())
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(new Date(now))} is before ${rfc3339(cert.notBefore)}`;
  if (now > cert.notAfter.getTime())
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(new Date(now))} is after ${rfc3339(cert.notAfter)}`;
  return undefined;
}

/** True when the certificate may sign others: Basic Constraints CA, and Certificate Sign if it has Key Usage. */
export function canSign(cert: X509Certificate): boolean {
  if (!cert.getExtension(BasicConstraintsExtension)?.ca) return false;
  const ku = cert.getExtension(KeyUsagesExtension);
  return !ku || (ku.usages & KeyUsageFlags.keyCertSign) !== 0;
}

/** The candidate issued `cert`: names match (raw bytes, as Go's pool) and its key verifies the signature. */
function issued(candidate: X509Certificate, cert: X509Certificate): boolean {
  if (!Buffer.from(candidate.subjectName.toArrayBuffer()).equals(Buffer.from(cert.issuerName.toArrayBuffer()))) return false;
  try {
    return node(cert).verify(node(candidate).publicKey);
  } catch {
    return false;
  }
}

export function verifyCertificate(leaf: X509Certificate, o: VerifyOptions): VerifyResult {
  const now = o.nowMs ?? Date.now();
  const chain: X509Certificate[] = [leaf];
  let cert = leaf;
  for (let depth = 0; ; depth++) {
    const bad = timeError(cert, now);
    if (bad) return { ok: false, reason: bad };
    const root = o.roots.find((r) => Buffer.from(r.rawData).equals(Buffer.from(cert.rawData)));
    if (root) break; // the certificate itself is trusted
    if (depth >= MAX_DEPTH) return { ok: false, reason: 'x509: too many intermediates for path length constraint' };
    const trusted = o.roots.find((r) => issued(r, cert));
    const parent = trusted ?? o.intermediates?.find((i) => issued(i, cert) && !chain.includes(i));
    if (!parent) return { ok: false, reason: 'x509: certificate signed by unknown authority' };
    if (!canSign(parent))
      return {
        ok: false,
        reason: `x509: certificate signed by unknown authority (possibly because of "x509: invalid signature: parent certificate cannot sign this kind of certificate" while trying to verify candidate authority certificate "${parent.subjectName.getField('CN')[0] ?? ''}")`,
      };
    chain.push(parent);
    cert = parent;
    if (trusted) {
      const rootBad = timeError(parent, now);
      if (rootBad) return { ok: false, reason: rootBad };
      break;
    }
  }
  if (o.usage) {
    const eku = leaf.getExtension(ExtendedKeyUsageExtension);
    if (eku && !eku.usages.some((u) => u === EXT_KEY_USAGE_OIDS[o.usage!] || u === ANY_EKU))
      return { ok: false, reason: 'x509: certificate specifies an incompatible key usage' };
  }
  if (o.host !== undefined) {
    const bad = hostError(leaf, o.host);
    if (bad) return { ok: false, reason: bad };
  }
  return { ok: true, chain };
}

const KEY_USAGE_FLAGS: [KeyUsage, KeyUsageFlags][] = [
  ['digitalSignature', KeyUsageFlags.digitalSignature],
  ['contentCommitment', KeyUsageFlags.nonRepudiation],
  ['keyEncipherment', KeyUsageFlags.keyEncipherment],
  ['dataEncipherment', KeyUsageFlags.dataEncipherment],
  ['keyAgreement', KeyUsageFlags.keyAgreement],
  ['keyCertSign', KeyUsageFlags.keyCertSign],
  ['cRLSign', KeyUsageFlags.cRLSign],
  ['encipherOnly', KeyUsageFlags.encipherOnly],
  ['decipherOnly', KeyUsageFlags.decipherOnly],
];

/** The certificate's key usages and extended key usages (OIDs this package has no name for are left out). */
export function certificateUsages(cert: X509Certificate): { keyUsages: KeyUsage[]; extKeyUsages: ExtKeyUsage[] } {
  const ku = cert.getExtension(KeyUsagesExtension)?.usages ?? 0;
  const oids = (cert.getExtension(ExtendedKeyUsageExtension)?.usages ?? []).map(String);
  return {
    keyUsages: KEY_USAGE_FLAGS.filter(([, f]) => (ku & f) !== 0).map(([u]) => u),
    extKeyUsages: oids.flatMap((oid) => (Object.entries(EXT_KEY_USAGE_OIDS) as [ExtKeyUsage, string][]).filter(([, o]) => o === oid).map(([u]) => u)),
  };
}

/** The certificate's SANs: DNS names and IP addresses, in the order stored. */
export function subjectAltNames(cert: X509Certificate): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const n of cert.getExtension(SubjectAlternativeNameExtension)?.names.items ?? []) {
    if (n.type === 'dns') dnsNames.push(n.value);
    else if (n.type === 'ip') ipAddresses.push(n.value);
  }
  return { dnsNames, ipAddresses };
}

function hostError(cert: X509Certificate, host: string): string | undefined {
  const n = node(cert);
  const { dnsNames, ipAddresses } = subjectAltNames(cert);
  if (net.isIP(host)) {
    if (n.checkIP(host)) return undefined;
    if (!ipAddresses.length) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ipAddresses.join(', ')}, not ${host}`;
  }
  if (n.checkHost(host, { subject: 'never' })) return undefined;
  if (!dnsNames.length) return 'x509: certificate relies on legacy Common Name field, use SANs instead';
  return `x509: certificate is valid for ${dnsNames.join(', ')}, not ${host}`;
}

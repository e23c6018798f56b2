// Signing profiles as cfssl's ca-config.json states them: usage names and an expiry. Seed 003's "kubernetes"
// profile (signing, key encipherment, server auth, client auth; 876000h) signs every leaf certificate, and its CA
// CSRs ask for 876000h; cfssl gives a CA Certificate Sign + CRL Sign.
import { parseDuration } from '@kemu/base';
import { PkiError } from './errors.ts';

export type KeyUsage =
  | 'digitalSignature'
  | 'contentCommitment'
  | 'keyEncipherment'
  | 'dataEncipherment'
  | 'keyAgreement'
  | 'keyCertSign'
  | 'cRLSign'
  | 'encipherOnly'
  | 'decipherOnly';
/** In the order of Go's x509.ExtKeyUsage constants (the order Kubernetes' signer writes them in). */
export type ExtKeyUsage =
  | 'any'
  | 'serverAuth'
  | 'clientAuth'
  | 'codeSigning'
  | 'emailProtection'
  | 'ipsecEndSystem'
  | 'ipsecTunnel'
  | 'ipsecUser'
  | 'timeStamping'
  | 'ocspSigning'
  | 'microsoftServerGatedCrypto'
  | 'netscapeServerGatedCrypto';

/** Each extended key usage's OID (RFC 5280 4.2.1.12, RFC 4945 for IPsec, and the vendors' SGC arcs). */
export const EXT_KEY_USAGE_OIDS: Record<ExtKeyUsage, string> = {
  any: '2.5.29.37.0',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  ipsecEndSystem: '1.3.6.1.5.5.7.3.5',
  ipsecTunnel: '1.3.6.1.5.5.7.3.6',
  ipsecUser: '1.3.6.1.5.5.7.3.7',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  microsoftServerGatedCrypto: '1.3.6.1.4.1.311.10.3.3',
  netscapeServerGatedCrypto: '2.16.840.1.113730.4.1',
};

export interface Profile {
  /** cfssl usage names ("signing", "key encipherment", "server auth", …). */
  usages: readonly string[];
  /** A Go duration, as in ca-config.json ("876000h" is 100 years). */
  expiry: string;
}

export const KUBERNETES_PROFILE: Profile = { usages: ['signing', 'key encipherment', 'server auth', 'client auth'], expiry: '876000h' };
export const CA_PROFILE: Profile = { usages: ['cert sign', 'crl sign'], expiry: '876000h' };

// cfssl's config.KeyUsage and config.ExtKeyUsage tables, which Kubernetes' certificates API took over as the
// names of a CertificateSigningRequest's usages.
export const KEY_USAGE_NAMES: Readonly<Record<string, KeyUsage>> = {
  signing: 'digitalSignature',
  'digital signature': 'digitalSignature',
  'content commitment': 'contentCommitment',
  'key encipherment': 'keyEncipherment',
  'key agreement': 'keyAgreement',
  'data encipherment': 'dataEncipherment',
  'cert sign': 'keyCertSign',
  'crl sign': 'cRLSign',
  'encipher only': 'encipherOnly',
  'decipher only': 'decipherOnly',
};
export const EXT_KEY_USAGE_NAMES: Readonly<Record<string, ExtKeyUsage>> = {
  any: 'any',
  'server auth': 'serverAuth',
  'client auth': 'clientAuth',
  'code signing': 'codeSigning',
  'email protection': 'emailProtection',
  's/mime': 'emailProtection',
  'ipsec end system': 'ipsecEndSystem',
  'ipsec tunnel': 'ipsecTunnel',
  'ipsec user': 'ipsecUser',
  timestamping: 'timeStamping',
  'ocsp signing': 'ocspSigning',
  'microsoft sgc': 'microsoftServerGatedCrypto',
  'netscape sgc': 'netscapeServerGatedCrypto',
};

export function profileUsages(p: Profile): { keyUsages: KeyUsage[]; extKeyUsages: ExtKeyUsage[] } {
  const keyUsages: KeyUsage[] = [];
  const extKeyUsages: ExtKeyUsage[] = [];
  for (const u of p.usages) {
    const ku = KEY_USAGE_NAMES[u];
    const eku = EXT_KEY_USAGE_NAMES[u];
    if (ku) keyUsages.push(ku);
    else if (eku) extKeyUsages.push(eku);
    else throw new PkiError(`unknown usage "${u}" (cfssl names: ${[...Object.keys(KEY_USAGE_NAMES), ...Object.keys(EXT_KEY_USAGE_NAMES)].join(', ')})`);
  }
  return { keyUsages, extKeyUsages };
}

export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

/** cfssl's validity: now rounded to the minute and back-dated 5 minutes (for clock skew), plus the expiry. */
export function profileValidity(p: Profile, nowMs: number): Validity {
  let expiryMs: number;
  try {
    expiryMs = parseDuration(p.expiry);
  } catch (e) {
    throw new PkiError(`invalid expiry "${p.expiry}": ${(e as Error).message}`);
  }
  if (expiryMs <= 0) throw new PkiError(`invalid expiry "${p.expiry}": must be positive`);
  const notBefore = Math.round(nowMs / 60_000) * 60_000 - 5 * 60_000;
  return { notBefore: new Date(notBefore), notAfter: new Date(notBefore + expiryMs) };
}

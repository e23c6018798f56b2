// Issuing certificates from a template, with the extensions Go's crypto/x509 writes for cfssl and kubeadm, in the
// same order: Key Usage (critical), Extended Key Usage, Basic Constraints (critical), Subject Key Identifier,
// Authority Key Identifier (not on a self-signed certificate), Subject Alternative Name.
import crypto, { type KeyObject } from 'node:crypto';
import net from 'node:net';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
  type Extension,
  type JsonGeneralName,
} from './x509.ts';
import { toName, type DistinguishedName } from './name.ts';
import { sameKey, signingAlgorithm, spkiDer, toSigningKey } from './keys.ts';
import { EXT_KEY_USAGE_OIDS, profileUsages, profileValidity, type ExtKeyUsage, type KeyUsage, type Profile } from './profile.ts';
import { decodePem } from './pem.ts';
import { PkiError } from './errors.ts';

export interface CertTemplate {
  subject: DistinguishedName;
  /** The subject's key (a private key is reduced to its public half). */
  publicKey: KeyObject;
  isCA?: boolean;
  keyUsages: readonly KeyUsage[];
  extKeyUsages?: readonly ExtKeyUsage[];
  /** Subject Alternative Names; IP addresses and DNS names, in cfssl's `hosts` form (see splitHosts). */
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  /** rfc822Name and URI SANs (a certificate a signer issues for a CSR carries every SAN the request asked for). */
  emailAddresses?: readonly string[];
  uris?: readonly string[];
  notBefore: Date;
  notAfter: Date;
  /** Whether to write a Subject Key Identifier (default true, as cfssl; Go's x509 writes none on a leaf unless asked). */
  subjectKeyId?: boolean;
  /** Hex; 20 random bytes (160 bits, positive) as cfssl's when absent. */
  serialNumber?: string;
}

/** A CA able to sign: its certificate and private key. */
export interface Signer {
  cert: X509Certificate;
  key: KeyObject;
}

const KU_FLAGS: Record<KeyUsage, KeyUsageFlags> = {
  digitalSignature: KeyUsageFlags.digitalSignature,
  contentCommitment: KeyUsageFlags.nonRepudiation,
  keyEncipherment: KeyUsageFlags.keyEncipherment,
  dataEncipherment: KeyUsageFlags.dataEncipherment,
  keyAgreement: KeyUsageFlags.keyAgreement,
  keyCertSign: KeyUsageFlags.keyCertSign,
  cRLSign: KeyUsageFlags.cRLSign,
  encipherOnly: KeyUsageFlags.encipherOnly,
  decipherOnly: KeyUsageFlags.decipherOnly,
};

/** cfssl's -hostname/`hosts` list split as cfssl does: IP addresses, the rest DNS names; duplicates dropped. */
export function splitHosts(hosts: Iterable<string>): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const raw of hosts) {
    const h = raw.trim();
    if (!h) continue;
    const list = net.isIP(h) ? ipAddresses : dnsNames;
    if (!list.includes(h)) list.push(h);
  }
  return { dnsNames, ipAddresses };
}

function randomSerial(): string {
  const b = crypto.randomBytes(20);
  b[0] = (b[0] ?? 0) & 0x7f || 0x01; // positive, and 20 bytes long
  return b.toString('hex');
}

/** The SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1), as Go computes it. */
async function keyIdentifier(publicKey: KeyObject): Promise<string> {
  const ext = await SubjectKeyIdentifierExtension.create(spkiDer(publicKey));
  return ext.keyId;
}

/**
 * Signs the template with `signer`; without a signer the certificate is self-signed by `selfKey`, which must be
 * the template's key (a root CA).
 */
export async function issueCertificate(tpl: CertTemplate, signer: Signer | { selfKey: KeyObject }): Promise<X509Certificate> {
  const selfSigned = 'selfKey' in signer;
  const signingKey = selfSigned ? signer.selfKey : signer.key;
  if (selfSigned && !sameKey(signer.selfKey, tpl.publicKey)) throw new PkiError('a self-signed certificate must be signed by its own key');
  if (!selfSigned && !sameKey(signer.key, certPublicKey(signer.cert)))
    throw new PkiError(`the signing key does not belong to the CA certificate "${signer.cert.subject}"`);
  if (tpl.notAfter <= tpl.notBefore) throw new PkiError('notAfter must be after notBefore');

  const extensions: Extension[] = [];
  let ku = 0;
  for (const u of tpl.keyUsages) ku |= KU_FLAGS[u];
  if (ku) extensions.push(new KeyUsagesExtension(ku, true));
  if (tpl.extKeyUsages?.length) extensions.push(new ExtendedKeyUsageExtension(tpl.extKeyUsages.map((u) => EXT_KEY_USAGE_OIDS[u]), false));
  extensions.push(new BasicConstraintsExtension(tpl.isCA === true, undefined, true));
  if (tpl.subjectKeyId !== false) extensions.push(new SubjectKeyIdentifierExtension(await keyIdentifier(tpl.publicKey), false));
  if (!selfSigned) {
    const issuerSki = signer.cert.getExtension(SubjectKeyIdentifierExtension)?.keyId ?? (await keyIdentifier(signer.key));
    extensions.push(new AuthorityKeyIdentifierExtension(issuerSki, false));
  }
  const sans: JsonGeneralName[] = [
    ...(tpl.dnsNames ?? []).map((value): JsonGeneralName => ({ type: 'dns', value })),
    ...(tpl.ipAddresses ?? []).map((value): JsonGeneralName => ({ type: 'ip', value })),
    ...(tpl.emailAddresses ?? []).map((value): JsonGeneralName => ({ type: 'email', value })),
    ...(tpl.uris ?? []).map((value): JsonGeneralName => ({ type: 'url', value })),
  ];
  if (sans.length) extensions.push(new SubjectAlternativeNameExtension(sans, false));

  const subject = toName(tpl.subject);
  const alg = signingAlgorithm(signingKey);
  return X509CertificateGenerator.create({
    serialNumber: tpl.serialNumber ?? randomSerial(),
    subject,
    // The issuer's subject bytes as they are, so Go's chain building (which compares raw names) finds the CA.
    issuer: selfSigned ? subject : signer.cert.subjectName,
    notBefore: tpl.notBefore,
    notAfter: tpl.notAfter,
    publicKey: spkiDer(tpl.publicKey),
    signingKey: await toSigningKey(signingKey),
    signingAlgorithm: { name: alg.name, hash: alg.hash },
    extensions,
  });
}

/** A template from a cfssl profile: usages and validity (back-dated 5 minutes) from the profile. */
export function templateFromProfile(
  profile: Profile,
  o: { subject: DistinguishedName; publicKey: KeyObject; hosts?: Iterable<string>; isCA?: boolean; nowMs: number },
): CertTemplate {
  return {
    subject: o.subject,
    publicKey: o.publicKey,
    isCA: o.isCA ?? false,
    ...profileUsages(profile),
    ...splitHosts(o.hosts ?? []),
    ...profileValidity(profile, o.nowMs),
  };
}

/** Every CERTIFICATE block of a PEM text, in order (a chain file is leaf first). */
export function parseCertificates(text: string, what = 'certificate'): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const b of decodePem(text)) {
    if (b.type !== 'CERTIFICATE') continue;
    try {
      out.push(new X509Certificate(b.der));
    } catch (e) {
      throw new PkiError(`${what}: a CERTIFICATE block does not parse: ${(e as Error).message}`);
    }
  }
  if (!out.length) throw new PkiError(`${what}: no CERTIFICATE block found`);
  return out;
}

/** The certificate's public key as a Node KeyObject. */
export function certPublicKey(cert: X509Certificate): KeyObject {
  return crypto.createPublicKey({ key: Buffer.from(cert.publicKey.rawData), format: 'der', type: 'spki' });
}

export function certificatePem(cert: X509Certificate): string {
  return cert.toString('pem') + '\n';
}

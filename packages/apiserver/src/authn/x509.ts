// The client-certificate authenticator (Kubernetes' x509.Authenticator with CommonNameUserConversion): the
// certificate the client presented is verified here against the --client-ca-file bundle for client auth (the TLS
// layer only asks for it), then CN is the user name and each O a group, in order. A certificate that does not
// verify is an error worded as Kubernetes': `verifying certificate SN=…, SKID=…, AKID=… failed: x509: …`.
import crypto from 'node:crypto';
import { verifyCertificate, X509Certificate } from '@kemu/pki';
import { presentedChain } from './request.ts';
import { AuthenticationError, type Authenticator, type AuthnRequest, type AuthnResponse } from './types.ts';

/** The user.Info extra key naming the credential a request used (Kubernetes 1.32: X509SHA256=… or JTI=…). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export interface VerifiedChain {
  chain: X509Certificate[];
}

/** Go's columnSeparatedHex: upper-case hex pairs joined by ':'. */
function columnHex(bytes: Uint8Array | undefined): string {
  if (!bytes) return '';
  return Buffer.from(bytes).toString('hex').toUpperCase().replace(/(..)(?=.)/g, '$1:');
}

// The key identifiers read straight from the DER of the extensions (SKID: OCTET STRING; AKID: SEQUENCE whose
// [0] is the key identifier), enough for the short ids every CA writes.
function skid(cert: X509Certificate): Uint8Array | undefined {
  const v = cert.getExtension('2.5.29.14')?.value;
  if (!v) return undefined;
  const b = new Uint8Array(v);
  return b[0] === 0x04 && b[1] !== undefined && b[1] < 0x80 ? b.subarray(2, 2 + b[1]) : undefined;
}

function akid(cert: X509Certificate): Uint8Array | undefined {
  const v = cert.getExtension('2.5.29.35')?.value;
  if (!v) return undefined;
  const b = new Uint8Array(v);
  if (b[0] !== 0x30 || b[1] === undefined || b[1] >= 0x80 || b[2] !== 0x80 || b[3] === undefined) return undefined;
  return b.subarray(4, 4 + b[3]);
}

/** Kubernetes' certificateIdentifier: "SN=<decimal serial>, SKID=<hex>, AKID=<hex>". */
export function certificateIdentifier(cert: X509Certificate): string {
  const serial = BigInt(`0x${cert.serialNumber || '0'}`).toString();
  return `SN=${serial}, SKID=${columnHex(skid(cert))}, AKID=${columnHex(akid(cert))}`;
}

/** The presented chain parsed, leaf first; undefined when no certificate was sent. */
export function parsedChain(req: AuthnRequest): X509Certificate[] | undefined {
  const chain = presentedChain(req);
  if (chain.length === 0) return undefined;
  return chain.map((c) => new X509Certificate(new Uint8Array(c.raw)));
}

/** Verifies the presented chain for client auth against `roots`; throws Go's x509 error text when it does not. */
export function verifyClientChain(chain: X509Certificate[], roots: readonly X509Certificate[], nowMs: number): X509Certificate[] {
  const [leaf, ...intermediates] = chain;
  const res = verifyCertificate(leaf!, { roots, intermediates, usage: 'clientAuth', nowMs });
  if (!res.ok) throw new AuthenticationError(res.reason);
  return res.chain;
}

export function x509Authenticator(roots: readonly X509Certificate[], now: () => number = Date.now): Authenticator {
  return {
    name: 'x509',
    authenticate(req: AuthnRequest): AuthnResponse | undefined {
      const chain = parsedChain(req);
      if (!chain) return undefined;
      // An empty bundle authenticates nobody, as in Kubernetes.
      if (roots.length === 0) return undefined;
      const leaf = chain[0]!;
      let verified: X509Certificate[];
      try {
        verified = verifyClientChain(chain, roots, now());
      } catch (e) {
        throw new AuthenticationError(`verifying certificate ${certificateIdentifier(leaf)} failed: ${(e as Error).message}`);
      }
      const cert = verified[0]!;
      const cn = cert.subjectName.getField('CN')[0] ?? '';
      if (cn === '') return undefined;
      const fingerprint = crypto.createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex');
      return {
        user: { username: cn, groups: cert.subjectName.getField('O'), extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] } },
      };
    },
  };
}

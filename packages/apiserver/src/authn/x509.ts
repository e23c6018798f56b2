// The client-certificate authenticator (Kubernetes' x509.Authenticator with CommonNameUserConversion): the
// certificate the client presented is verified here against the --client-ca-file bundle for client auth (the TLS
// layer only asks for it), then CN is the user name and each O a group, in order. A certificate that does not
// verify is an error worded as Kubernetes': `verifying certificate SN=…, SKID=…, AKID=… failed: x509: …`. Verdicts are
// remembered per presented chain (ClientChainVerifier), as parsing and checking one costs milliseconds.
import crypto from 'node:crypto';
import { verifyCertificate, X509Certificate } from '@kemu/pki';
import { presentedChain } from './request.ts';
import { AuthenticationError, type Authenticator, type AuthnRequest, type AuthnResponse } from './types.ts';

/** The user.Info extra key naming the credential a request used (Kubernetes 1.32: X509SHA256=… or JTI=…). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

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

/** What a verified chain tells about its client, and how long that holds. */
export interface VerifiedClient {
  cn: string;
  organizations: string[];
  /** Hex SHA-256 of the leaf's DER (the credential id). */
  fingerprint: string;
  /** The window in which every certificate of the verified chain is valid. */
  fromMs: number;
  untilMs: number;
}

type Entry = { ok: true; client: VerifiedClient } | { ok: false; reason: string; identifier: string; untilMs: number };

/** How long a refusal is remembered (a certificate not yet valid may become valid). */
const REFUSAL_TTL_MS = 10_000;
const MAX_ENTRIES = 4096;

/**
 * Verifies presented chains against one CA bundle for client auth, remembering the verdict per chain: parsing
 * and checking a chain costs milliseconds, and a client presents the same chain on every request. A verdict
 * holds while every certificate of the chain is inside its validity window (a refusal for ten seconds).
 */
export class ClientChainVerifier {
  private readonly cache = new Map<string, Entry>();

  constructor(readonly roots: readonly X509Certificate[]) {}

  /** Throws AuthenticationError with Go's x509 reason; `identifier` in the error names the leaf. */
  verify(raws: readonly Buffer[], nowMs: number): VerifiedClient {
    const hash = crypto.createHash('sha256');
    for (const r of raws) hash.update(r);
    const key = hash.digest('base64');
    let e = this.cache.get(key);
    const fresh = e && (e.ok ? nowMs >= e.client.fromMs && nowMs <= e.client.untilMs : nowMs <= e.untilMs);
    if (!e || !fresh) {
      e = this.check(raws, nowMs);
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(key, e);
    }
    if (!e.ok) throw new ChainRefused(e.reason, e.identifier);
    return e.client;
  }

  private check(raws: readonly Buffer[], nowMs: number): Entry {
    const chain = raws.map((r) => new X509Certificate(new Uint8Array(r)));
    const [leaf, ...intermediates] = chain;
    const res = verifyCertificate(leaf!, { roots: this.roots, intermediates, usage: 'clientAuth', nowMs });
    if (!res.ok) return { ok: false, reason: res.reason, identifier: certificateIdentifier(leaf!), untilMs: nowMs + REFUSAL_TTL_MS };
    const cert = res.chain[0]!;
    return {
      ok: true,
      client: {
        cn: cert.subjectName.getField('CN')[0] ?? '',
        organizations: cert.subjectName.getField('O'),
        fingerprint: crypto.createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex'),
        fromMs: Math.max(...res.chain.map((c) => c.notBefore.getTime())),
        untilMs: Math.min(...res.chain.map((c) => c.notAfter.getTime())),
      },
    };
  }
}

/** A chain that did not verify: the message is Go's x509 reason. */
export class ChainRefused extends AuthenticationError {
  constructor(
    reason: string,
    readonly identifier: string,
  ) {
    super(reason);
  }
}

/** The raw DER of the presented chain, leaf first; undefined when no certificate was sent. */
export function presentedRaw(req: AuthnRequest): Buffer[] | undefined {
  const chain = presentedChain(req);
  return chain.length === 0 ? undefined : chain.map((c) => c.raw);
}

export function x509Authenticator(roots: readonly X509Certificate[], now: () => number = Date.now): Authenticator {
  const verifier = new ClientChainVerifier(roots);
  return {
    name: 'x509',
    authenticate(req: AuthnRequest): AuthnResponse | undefined {
      const raws = presentedRaw(req);
      if (!raws) return undefined;
      // An empty bundle authenticates nobody, as in Kubernetes.
      if (roots.length === 0) return undefined;
      let client: VerifiedClient;
      try {
        client = verifier.verify(raws, now());
      } catch (e) {
        if (!(e instanceof ChainRefused)) throw e;
        throw new AuthenticationError(`verifying certificate ${e.identifier} failed: ${e.message}`);
      }
      if (client.cn === '') return undefined;
      return { user: { username: client.cn, groups: [...client.organizations], extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${client.fingerprint}`] } } };
    },
  };
}

// A signer's CA, read from its certificate and key files and read again when they change (Kubernetes' caProvider
// over dynamic file content): each use compares the files' bytes with what was loaded — two small reads — and
// parses them again only when they differ. New content that does not load leaves the last good CA in use, with
// an error logged. Unlike Kubernetes, whose controller manager exits when a CA file cannot be read at start-up,
// a CA that has never loaded only makes each signing attempt fail (CSRs stay approved but unsigned, the error
// logged) until the files are fixed.
import fs from 'node:fs';
import { goReadFileError, type Logger } from '@kemu/base';
import { certPublicKey, parseCertificates, parsePrivateKeyPem, sameKey, type Signer } from '@kemu/pki';


export class CaProvider {
  private raw: { cert: Buffer; key: Buffer } | undefined;
  private ca: Signer | undefined;
  private lastError: string | undefined;

  constructor(
    readonly certFile: string,
    readonly keyFile: string,
    private readonly logger: Logger,
  ) {}

  /** The current CA; throws (with Kubernetes' "error reading CA cert file" message) when none has ever loaded. */
  current(): Signer {
    this.refresh();
    if (this.ca) return this.ca;
    throw new Error(this.lastError ?? `error reading CA cert file "${this.certFile}"`);
  }

  /** Loads changed files; returns true when a new CA was taken into use. */
  refresh(): boolean {
    const prefix = `error reading CA cert file "${this.certFile}"`;
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = this.read(this.certFile);
      key = this.read(this.keyFile);
    } catch (e) {
      return this.failed(`${prefix}: ${(e as Error).message}`);
    }
    if (this.raw && this.raw.cert.equals(cert) && this.raw.key.equals(key)) return false;
    let next: Signer;
    try {
      const certs = parseCertificates(cert.toString('latin1'), this.certFile);
      if (certs.length !== 1) return this.failed(`${prefix}: expected 1 certificate, found ${certs.length}`);
      const k = parsePrivateKeyPem(key.toString('latin1'), this.keyFile);
      if (!sameKey(k, certPublicKey(certs[0]!))) return this.failed(`${prefix}: tls: private key does not match public key`);
      next = { cert: certs[0]!, key: k };
    } catch (e) {
      return this.failed(`${prefix}: ${(e as Error).message}`);
    }
    const first = !this.ca;
    this.raw = { cert, key };
    this.ca = next;
    this.lastError = undefined;
    this.logger.info({ certFile: this.certFile, keyFile: this.keyFile, subject: next.cert.subject }, first ? 'Loaded the CA for CSR signing' : 'Reloaded the CA for CSR signing');
    return true;
  }

  private read(file: string): Buffer {
    try {
      return fs.readFileSync(file);
    } catch (e) {
      throw new Error(goReadFileError(file, e));
    }
  }

  /** Logs a new failure once (not on every attempt) and keeps the last good CA. */
  private failed(message: string): false {
    if (message !== this.lastError) this.logger.error({ certFile: this.certFile, keyFile: this.keyFile, err: message }, this.ca ? 'Keeping the previous CA: the new files do not load' : 'The CA for CSR signing cannot be loaded');
    this.lastError = message;
    return false;
  }
}

// client-go's certificate FileStore as the kubelet uses it: each issued certificate is written with its key in
// one file, <dir>/<pair>-<2006-01-02-15-04-05>.pem (0600), and <dir>/<pair>-current.pem is a symlink to the
// newest one (replaced through <pair>-updated.pem and a rename, so readers never see it missing).
import fs from 'node:fs';
import path from 'node:path';
import { parseCertificates, parsePrivateKeyPem, type X509Certificate } from '@kemu/pki';

export interface StoredPair {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
}

/** Go's time.Format("2006-01-02-15-04-05") in UTC. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace(/[T:]/g, '-');
}

/** Splits a PEM text holding certificate(s) and a private key into both halves. */
export function splitPair(text: string, what: string): StoredPair {
  const blocks = text.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----\n?/g) ?? [];
  const certPem = blocks.filter((b) => b.startsWith('-----BEGIN CERTIFICATE-----')).join('');
  const keyPem = blocks.filter((b) => /PRIVATE KEY-----/.test(b.split('\n')[0] ?? '')).join('');
  const cert = parseCertificates(certPem, what)[0] as X509Certificate;
  parsePrivateKeyPem(keyPem, what);
  return { certPem, keyPem, cert };
}

export class CertificateFileStore {
  constructor(
    readonly dir: string,
    readonly pair: string,
  ) {}

  currentPath(): string {
    return path.join(this.dir, `${this.pair}-current.pem`);
  }

  /** The current pair, or undefined when there is none (or it does not parse). */
  current(): StoredPair | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.currentPath(), 'utf8');
    } catch {
      return undefined;
    }
    try {
      return splitPair(text, this.currentPath());
    } catch {
      return undefined;
    }
  }

  /** Writes a new pair and points <pair>-current.pem at it; returns the file written. */
  update(certPem: string, keyPem: string, nowMs = Date.now()): string {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    const file = path.join(this.dir, `${this.pair}-${stamp(nowMs)}.pem`);
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, certPem.endsWith('\n') ? certPem + keyPem : `${certPem}\n${keyPem}`, { mode: 0o600 });
    fs.renameSync(tmp, file);
    const updated = path.join(this.dir, `${this.pair}-updated.pem`);
    fs.rmSync(updated, { force: true });
    fs.symlinkSync(file, updated);
    fs.renameSync(updated, this.currentPath());
    return file;
  }
}

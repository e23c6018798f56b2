// The serving certificate of a component's secure port, as SecureServingOptions.MaybeDefaultWithSelfSignedCerts
// picks it: --tls-cert-file/--tls-private-key-file when given; else <cert-dir>/<pair>.crt and .key when both can be
// read; else a new self-signed one for "localhost" and 127.0.0.1 (plus the bind address, or the DNS name localhost
// when bound to all interfaces), written to --cert-dir when set and kept in memory otherwise.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { goErrnoReason } from '@kemu/base';

export interface ServingCertOptions {
  certFile: string;
  keyFile: string;
  certDir: string;
  /** Names the files in certDir (Kubernetes' PairName, e.g. "kube-controller-manager"). */
  pairName: string;
  bindAddress: string;
  /** The kubelet's rule instead: a certificate for this host name alone (GenerateSelfSignedCertKey(hostName, nil, nil)). */
  selfSignedHost?: string;
  /** The kubelet's kemu rule: a generated pair that cannot be written to certDir is kept in memory (the reason in `unwritable`). */
  memoryIfUnwritable?: boolean;
}

export interface ServingCert {
  cert: string;
  key: string;
  /** Where it came from, for the start-up log line. */
  source: 'files' | 'cert-dir' | 'generated-in-cert-dir' | 'generated-in-memory';
  certFile?: string;
  keyFile?: string;
  /** Why a generated pair stayed in memory although certDir was set (memoryIfUnwritable). */
  unwritable?: string;
}

function readable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function readFile(file: string, what: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`unable to load ${what} "${file}": ${goErrnoReason(e)}`);
  }
}

export async function servingCert(o: ServingCertOptions): Promise<ServingCert> {
  if (o.certFile || o.keyFile) {
    if (!o.certFile || !o.keyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    return { cert: readFile(o.certFile, 'server certificate'), key: readFile(o.keyFile, 'server key'), source: 'files', certFile: o.certFile, keyFile: o.keyFile };
  }
  let certFile: string | undefined;
  let keyFile: string | undefined;
  if (o.certDir) {
    certFile = path.join(o.certDir, `${o.pairName}.crt`);
    keyFile = path.join(o.certDir, `${o.pairName}.key`);
    if (readable(certFile) && readable(keyFile)) {
      return { cert: readFile(certFile, 'server certificate'), key: readFile(keyFile, 'server key'), source: 'cert-dir', certFile, keyFile };
    }
  }
  const unspecified = o.bindAddress === '' || o.bindAddress === '0.0.0.0' || o.bindAddress === '::';
  const alternateIPs = ['127.0.0.1', ...(!unspecified && net.isIP(o.bindAddress) ? [o.bindAddress] : [])];
  // @kemu/pki (and its X.509 library) loads only when a certificate is made.
  const { selfSignedServingCert, writeFileAtomic, PRIVATE_MODE, PUBLIC_MODE } = await import('@kemu/pki');
  const made = o.selfSignedHost
    ? await selfSignedServingCert({ host: o.selfSignedHost })
    : await selfSignedServingCert({ host: 'localhost', alternateIPs, alternateDNS: unspecified ? ['localhost'] : [] });
  if (certFile && keyFile) {
    try {
      writeFileAtomic(certFile, made.certPem, PUBLIC_MODE);
      writeFileAtomic(keyFile, made.keyPem, PRIVATE_MODE);
    } catch (e) {
      if (!o.memoryIfUnwritable) throw e;
      return { cert: made.certPem, key: made.keyPem, source: 'generated-in-memory', unwritable: (e as Error).message };
    }
    return { cert: made.certPem, key: made.keyPem, source: 'generated-in-cert-dir', certFile, keyFile };
  }
  return { cert: made.certPem, key: made.keyPem, source: 'generated-in-memory' };
}

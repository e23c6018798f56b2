// Certificate and key files on disk: written whole (temporary file, then rename) with the modes cfssljson and
// kubeadm use (0600 for private keys and kubeconfigs, 0644 for the rest), and read back with errors naming the file.
import fs from 'node:fs';
import path from 'node:path';
import { parseCertificates } from './cert.ts';
import { parsePrivateKeyPem, sameKey } from './keys.ts';
import { certPublicKey, type Signer } from './cert.ts';
import { canSign } from './verify.ts';
import { PkiError } from './errors.ts';

export const PRIVATE_MODE = 0o600;
export const PUBLIC_MODE = 0o644;

export function writeFileAtomic(file: string, data: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data, { mode });
  fs.chmodSync(tmp, mode); // the umask may have narrowed it
  fs.renameSync(tmp, file);
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new PkiError(`${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

/** A certificate file and its key file, the key checked to belong to the certificate. */
export function readCertAndKey(certFile: string, keyFile: string): Signer {
  const cert = parseCertificates(read(certFile), certFile)[0]!;
  const key = parsePrivateKeyPem(read(keyFile), keyFile);
  if (!sameKey(key, certPublicKey(cert))) throw new PkiError(`${keyFile}: the private key does not match the certificate in ${certFile}`);
  return { cert, key };
}

/** A CA's certificate and key (as --cluster-signing-cert-file/--cluster-signing-key-file name them). */
export function readSigner(certFile: string, keyFile: string): Signer {
  const s = readCertAndKey(certFile, keyFile);
  if (!canSign(s.cert)) throw new PkiError(`${certFile}: not a CA certificate (Basic Constraints CA:TRUE with Certificate Sign)`);
  return s;
}

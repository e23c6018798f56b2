// TLS bootstrapping (pkg/kubelet/certificate/bootstrap): a kubelet whose --kubeconfig holds no valid client
// certificate asks for one with the bootstrap credentials: a CSR named node-csr-<digest> for
// system:node:<name> to kubernetes.io/kube-apiserver-client-kubelet, its key kept in kubelet-client.key.tmp
// meanwhile (so a restart asks with the same key and finds its request), the issued certificate stored with the
// key in --cert-dir (kubelet-client-current.pem), and --kubeconfig written to point at it.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { SIGNER_KUBE_APISERVER_CLIENT_KUBELET } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { ClientConfig } from '@kemu/client';
import { createCsr, csrPem, generatePrivateKey, parseCertificates, parsePrivateKeyPem, privateKeyPem, writeFileAtomic, PRIVATE_MODE } from '@kemu/pki';
import { requestCertificate, waitForCertificate, type CsrApi } from './csr.ts';
import { BOOTSTRAP_USAGES, bootstrapCsrName, nodeSubject } from './identity.ts';
import type { CertificateFileStore, StoredPair } from './store.ts';

export const TMP_PRIVATE_KEY_FILE = 'kubelet-client.key.tmp';
/** bootstrap.go waits an hour for the certificate. */
const WAIT_MS = 3600_000;

/** isClientConfigStillValid: the kubeconfig's client certificates, none of them expired. */
export function clientConfigStillValid(config: ClientConfig | undefined, nowMs: number): boolean {
  if (!config?.certData || !config.keyData) return false;
  try {
    const certs = parseCertificates(config.certData.toString('utf8'));
    return certs.every((c) => c.notAfter.getTime() > nowMs);
  } catch {
    return false;
  }
}

function loadOrGenerateKey(file: string): Promise<string> | string {
  try {
    const pem = fs.readFileSync(file, 'utf8');
    parsePrivateKeyPem(pem, file);
    return pem;
  } catch {
    // keyutil.LoadOrGenerateKeyFile: an ECDSA P-256 key, written before it is used.
    return generatePrivateKey({ algo: 'ecdsa', size: 256 }).then((k) => {
      const pem = privateKeyPem(k);
      writeFileAtomic(file, pem, PRIVATE_MODE);
      return pem;
    });
  }
}

/** Asks for the node's client certificate with the bootstrap client; resolves once it is issued and stored. */
export async function requestNodeClientCertificate(nodeName: string, store: CertificateFileStore, client: CsrApi, logger: Logger, signal: AbortSignal): Promise<StoredPair> {
  const current = store.current();
  const keyPath = path.join(store.dir, TMP_PRIVATE_KEY_FILE);
  const keyPem = current ? current.keyPem : await loadOrGenerateKey(keyPath);
  const key = parsePrivateKeyPem(keyPem);
  const subject = nodeSubject(nodeName);
  const request = csrPem(await createCsr(subject, key));
  const { name, uid } = await requestCertificate(client, { name: bootstrapCsrName(key, subject, BOOTSTRAP_USAGES), requestPem: request, signerName: SIGNER_KUBE_APISERVER_CLIENT_KUBELET, usages: BOOTSTRAP_USAGES });
  logger.debug({ node: nodeName, csr: name }, 'Waiting for client certificate to be issued');
  const certPem = await waitForCertificate(client, name, uid, logger, AbortSignal.any([signal, AbortSignal.timeout(WAIT_MS)]));
  store.update(certPem, keyPem);
  fs.rmSync(keyPath, { force: true });
  return { certPem, keyPem, cert: parseCertificates(certPem)[0]! };
}

/** writeKubeconfigFromBootstrapping: the bootstrap's cluster, and the certificate file as the user's credentials. */
export function writeKubeconfigFromBootstrapping(file: string, bootstrap: ClientConfig, pemPath: string): void {
  const cluster: Record<string, unknown> = { server: bootstrap.server };
  if (bootstrap.caData) cluster['certificate-authority-data'] = bootstrap.caData.toString('base64');
  if (bootstrap.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  const doc = {
    apiVersion: 'v1',
    clusters: [{ cluster, name: 'default-cluster' }],
    contexts: [{ context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' }, name: 'default-context' }],
    'current-context': 'default-context',
    kind: 'Config',
    preferences: {},
    users: [{ name: 'default-auth', user: { 'client-certificate': pemPath, 'client-key': pemPath } }],
  };
  writeFileAtomic(file, stringify(doc, { lineWidth: 0 }), PRIVATE_MODE);
}

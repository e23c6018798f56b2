// Test helpers for the certificate controllers: CertificateSigningRequests as a kubelet or a user makes them
// (a real PKCS#10 request, base64 PEM in spec.request), a CA on disk, and what an issued certificate says.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { SIGNER_KUBE_APISERVER_CLIENT_KUBELET, SIGNER_KUBELET_SERVING, type CertificateSigningRequest, type CertificateSigningRequestCondition, type KeyUsage } from '@kemu/api';
import {
  CA_PROFILE,
  certificatePem,
  createCsr,
  generatePrivateKey,
  issueCertificate,
  parseCertificates,
  privateKeyPem,
  templateFromProfile,
  type DistinguishedName,
  type Signer,
  type X509Certificate,
} from '@kemu/pki';

let sharedKey: Promise<KeyObject> | undefined;
/** One ECDSA key for every test request (generating keys is the slow part). */
export const requestKey = (): Promise<KeyObject> => (sharedKey ??= generatePrivateKey({ algo: 'ecdsa', size: 256 }));

export interface CsrOptions {
  name: string;
  subject: DistinguishedName;
  signerName: string;
  usages: KeyUsage[];
  hosts?: string[];
  username?: string;
  groups?: string[];
  expirationSeconds?: number;
  conditions?: CertificateSigningRequestCondition[];
}

export async function makeCsr(o: CsrOptions): Promise<CertificateSigningRequest> {
  const pem = (await createCsr(o.subject, await requestKey(), o.hosts ?? [])).toString('pem');
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: o.name },
    spec: {
      request: Buffer.from(pem).toString('base64'),
      signerName: o.signerName,
      usages: o.usages,
      username: o.username ?? 'kubelet-bootstrap',
      groups: o.groups ?? ['system:authenticated'],
      ...(o.expirationSeconds !== undefined ? { expirationSeconds: o.expirationSeconds } : {}),
    },
    ...(o.conditions ? { status: { conditions: o.conditions } } : {}),
  };
}

/** A kubelet's client request for worker-1 (pending unless `o` says otherwise). */
export const nodeClientCsr = (name: string, o: Partial<CsrOptions> = {}): Promise<CertificateSigningRequest> =>
  makeCsr({
    name,
    subject: { CN: 'system:node:worker-1', O: ['system:nodes'] },
    signerName: SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
    usages: ['digital signature', 'key encipherment', 'client auth'],
    ...o,
  });

/** A kubelet's serving request for worker-1 (its name and address as SANs). */
export const nodeServingCsr = (name: string, o: Partial<CsrOptions> = {}): Promise<CertificateSigningRequest> =>
  makeCsr({
    name,
    subject: { CN: 'system:node:worker-1', O: ['system:nodes'] },
    signerName: SIGNER_KUBELET_SERVING,
    usages: ['digital signature', 'key encipherment', 'server auth'],
    hosts: ['worker-1', '10.240.0.21'],
    ...o,
  });

export const approved = (): CertificateSigningRequestCondition[] => [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' }];

/** A CA valid from `nowMs` (minus cfssl's 5 minutes) for `validMs`, written as <dir>/<name>.pem and <name>-key.pem. */
export async function writeCa(dir: string, name: string, nowMs: number, validMs = 10 * 365 * 24 * 3_600_000): Promise<{ ca: Signer; certFile: string; keyFile: string }> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const tpl = templateFromProfile(CA_PROFILE, { subject: { CN: name }, publicKey: key, isCA: true, nowMs });
  const cert = await issueCertificate({ ...tpl, notAfter: new Date(tpl.notBefore.getTime() + validMs) }, { selfKey: key });
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}-key.pem`);
  fs.writeFileSync(certFile, certificatePem(cert));
  fs.writeFileSync(keyFile, privateKeyPem(key));
  return { ca: { cert, key }, certFile, keyFile };
}

/** status.certificate, parsed. */
export function issuedCertificate(csr: CertificateSigningRequest): X509Certificate {
  return parseCertificates(Buffer.from(csr.status?.certificate ?? '', 'base64').toString('latin1'))[0]!;
}

// What the certificate controllers read off a CertificateSigningRequest: its conditions
// (pkg/controller/certificates' helpers), its PEM request (pkg/apis/certificates.ParseCSR) and the built-in
// kubelet signers' rules for a request (pkg/apis/certificates' ValidateKubelet{Client,Serving}CSR), with
// Kubernetes' messages, which end up in a Failed condition.
import type { CertificateSigningRequest, CertificateSigningRequestConditionType } from '@kemu/api';
import { decodePem, parseCsr, type ParsedCsr } from '@kemu/pki';

export function hasTrueCondition(csr: CertificateSigningRequest, type: CertificateSigningRequestConditionType): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && (c.status === 'True' || !c.status));
}

/** GetCertApprovalCondition: whether the request carries an Approved and/or a Denied condition. */
export function approvalState(csr: CertificateSigningRequest): { approved: boolean; denied: boolean } {
  let approved = false;
  let denied = false;
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Approved') approved = true;
    if (c.type === 'Denied') denied = true;
  }
  return { approved, denied };
}

/** IsCertificateRequestApproved: approved and not denied. */
export const isApproved = (csr: CertificateSigningRequest): boolean => {
  const s = approvalState(csr);
  return s.approved && !s.denied;
};

export const isIssued = (csr: CertificateSigningRequest): boolean => (csr.status?.certificate ?? '') !== '';

/** The request's PEM (spec.request is base64 in JSON), parsed; the first PEM block must be the request. */
export async function parseRequest(csr: CertificateSigningRequest): Promise<ParsedCsr> {
  const pem = Buffer.from(csr.spec.request ?? '', 'base64').toString('latin1');
  const first = decodePem(pem)[0];
  if (first?.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return parseCsr(pem);
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]): boolean => a.size === new Set(b).size && b.every((u) => a.has(u));
const sorted = (l: readonly string[]): string => `[${[...l].sort().join(' ')}]`;

const KUBELET_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

const onlySystemNodes = (req: ParsedCsr): boolean => req.subject.O?.length === 1 && req.subject.O[0] === 'system:nodes';

/** ValidateKubeletClientCSR: the error message, or undefined when `req` is a node's client request. */
export function kubeletClientError(req: ParsedCsr, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!(req.subject.CN ?? '').startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  const set = new Set(usages);
  if (!sameSet(set, KUBELET_CLIENT_USAGES) && !sameSet(set, KUBELET_CLIENT_USAGES_NO_RSA)) return `usages did not match ${sorted(KUBELET_CLIENT_USAGES)}`;
  return undefined;
}

/** ValidateKubeletServingCSR: the error message, or undefined when `req` is a node's serving request. */
export function kubeletServingError(req: ParsedCsr, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  const set = new Set(usages);
  if (!sameSet(set, KUBELET_SERVING_USAGES) && !sameSet(set, KUBELET_SERVING_USAGES_NO_RSA)) return `usages did not match ${sorted(KUBELET_SERVING_USAGES)}`;
  if (!(req.subject.CN ?? '').startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** The kube-apiserver-client signer's usage rule (validAPIServerClientUsages). */
export function apiserverClientUsagesError(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

// certificates.k8s.io/v1: CertificateSigningRequest, and the signer names and usages Kubernetes' built-in
// signers know (k8s.io/api/certificates/v1).
import type { KubeObject } from './meta.ts';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';

/** The built-in signers (certificatesv1.KubeAPIServerClientSignerName, …). */
export const SIGNER_KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const SIGNER_KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const SIGNER_KUBELET_SERVING = 'kubernetes.io/kubelet-serving';
/** Refused on certificates.k8s.io/v1 create (v1beta1 only). */
export const SIGNER_LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown';

export type KeyUsage =
  | 'signing'
  | 'digital signature'
  | 'content commitment'
  | 'key encipherment'
  | 'key agreement'
  | 'data encipherment'
  | 'cert sign'
  | 'crl sign'
  | 'encipher only'
  | 'decipher only'
  | 'any'
  | 'server auth'
  | 'client auth'
  | 'code signing'
  | 'email protection'
  | 's/mime'
  | 'ipsec end system'
  | 'ipsec tunnel'
  | 'ipsec user'
  | 'timestamping'
  | 'ocsp signing'
  | 'microsoft sgc'
  | 'netscape sgc';

export interface CertificateSigningRequestSpec {
  /** Base64 (in JSON) of a PEM "CERTIFICATE REQUEST" block. */
  request: string;
  signerName: string;
  expirationSeconds?: number;
  usages?: KeyUsage[];
  /** Filled by the apiserver from the creating user; immutable. */
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type CertificateSigningRequestConditionType = 'Approved' | 'Denied' | 'Failed';

export interface CertificateSigningRequestCondition {
  type: CertificateSigningRequestConditionType | string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequestStatus {
  conditions?: CertificateSigningRequestCondition[];
  /** Base64 (in JSON) of PEM "CERTIFICATE" blocks, set by the signer (through /status). */
  certificate?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}

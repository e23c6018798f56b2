// certificates.k8s.io/v1 CertificateSigningRequest (k8s.io/api/certificates/v1 generated.proto), as `kubectl
// create -f` and client-go's typed clients (kubelet bootstrap, `kubectl certificate approve`) send it. request
// and certificate are []byte (base64 in JSON); expirationSeconds is an *int32; extra maps to ExtraValue lists.
import { bytes, i32Ptr, list, mapOf, msg, str, strs, struct } from '../build.ts';
import { ObjectMeta, Time } from './meta.ts';

/** certificates/v1 ExtraValue {1 items} is a Go []string, so its JSON is the list itself. */
export const ExtraValue = struct('', '', { 1: strs('items') }, { format: 'string-list' });
export const CertificateSigningRequestSpec = struct('io.k8s.api.certificates.v1.CertificateSigningRequestSpec', '', {
  1: bytes('request'),
  7: str('signerName'),
  8: i32Ptr('expirationSeconds'),
  5: strs('usages'),
  2: str('username'),
  3: str('uid'),
  4: strs('groups'),
  6: mapOf('extra', () => ExtraValue),
});
export const CertificateSigningRequestCondition = struct('io.k8s.api.certificates.v1.CertificateSigningRequestCondition', '', {
  1: str('type'),
  6: str('status'),
  2: str('reason'),
  3: str('message'),
  4: msg('lastUpdateTime', () => Time),
  5: msg('lastTransitionTime', () => Time),
});
export const CertificateSigningRequestStatus = struct('io.k8s.api.certificates.v1.CertificateSigningRequestStatus', '', { 1: list('conditions', () => CertificateSigningRequestCondition), 2: bytes('certificate') });
export const CertificateSigningRequest = struct('io.k8s.api.certificates.v1.CertificateSigningRequest', '', {
  1: msg('metadata', () => ObjectMeta),
  2: msg('spec', () => CertificateSigningRequestSpec),
  3: msg('status', () => CertificateSigningRequestStatus),
});

// certificates.k8s.io/v1 CertificateSigningRequest (k8s.io/api/certificates/v1 generated.proto and types.go), as
// `kubectl create -f` and client-go's typed clients (kubelet bootstrap, `kubectl certificate approve`) send it.
// request and certificate are []byte (base64 in JSON); expirationSeconds is an *int32; extra maps to ExtraValue
// lists. status.conditions is keyed by type for server-side apply but has no strategic merge key (replaced whole).
import { bytes, i32Ptr, list, mapList, mapOf, msg, str, strs, struct } from '../build.ts';
import { ObjectMeta, Time } from './meta.ts';

const CERTS = 'io.k8s.api.certificates.v1.';

/** certificates/v1 ExtraValue is a Go []string with no OpenAPI definition of its own, so its JSON is the list itself. */
export const ExtraValue = struct('', 'Values of one extra user attribute, as a list of strings.', { 1: strs('items', 'The values.') }, { format: 'string-list' });

export const CertificateSigningRequestSpec = struct(`${CERTS}CertificateSigningRequestSpec`, 'The certificate asked for, and who asked; only signerName and usages are chosen freely.', {
  1: bytes('request', 'The PEM-encoded PKCS#10 certificate request (base64 in JSON).'),
  7: str('signerName', 'Signer to issue it, such as kubernetes.io/kube-apiserver-client or kubernetes.io/kubelet-serving.'),
  8: i32Ptr('expirationSeconds', 'Validity asked for, in seconds, at least 600; the signer may issue a shorter one.'),
  5: strs('usages', 'Key usages asked for ("client auth", "server auth", "digital signature", "key encipherment"…).'),
  2: str('username', 'Name of the user who created the request; set by the server.'),
  3: str('uid', 'UID of the user who created the request; set by the server.'),
  4: strs('groups', 'Groups of the user who created the request; set by the server.'),
  6: mapOf('extra', () => ExtraValue, 'Extra attributes of the user who created the request; set by the server.'),
});

export const CertificateSigningRequestCondition = struct(`${CERTS}CertificateSigningRequestCondition`, 'One decision about a request: approved, denied or failed.', {
  1: str('type', 'Approved, Denied or Failed; a request is never both approved and denied.'),
  6: str('status', 'True, False or Unknown; Approved and Denied are always True.'),
  2: str('reason', 'One-word CamelCase reason (KubectlApprove, AutoApproved…).'),
  3: str('message', 'Human-readable details.'),
  4: msg('lastUpdateTime', () => Time, 'When the condition was last updated.'),
  5: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
});

export const CertificateSigningRequestStatus = struct(`${CERTS}CertificateSigningRequestStatus`, 'The decision on a request and, once signed, the certificate.', {
  1: list('conditions', () => CertificateSigningRequestCondition, 'Approval, denial or failure, at most one of each type.', mapList(['type'])),
  2: bytes('certificate', 'The issued PEM certificate chain (base64 in JSON), set by the signer after approval.'),
});

export const CertificateSigningRequest = struct(`${CERTS}CertificateSigningRequest`, 'Asks a signer for an X.509 certificate; it is issued once the request is approved.', {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata.'),
  2: msg('spec', () => CertificateSigningRequestSpec, 'The certificate asked for; cannot change after creation.'),
  3: msg('status', () => CertificateSigningRequestStatus, 'Approval conditions and the issued certificate.'),
});

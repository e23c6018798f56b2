// @kemu/pki: X.509 work every component shares, on @peculiar/x509 and Node's crypto (no openssl shell-outs).
// Guarantees: certificates carry the subject layout and extensions Go's crypto/x509 (cfssl, kubeadm) writes, so
// Go clients such as kubectl chain them; keys are read in every form cfssl and openssl write (PKCS#1, PKCS#8,
// SEC1) and written as cfssl does; verification follows Go's rules and error messages; the cluster PKI keeps
// valid files and makes missing ones, in seed 003's layout.
export * from './errors.ts';
export * from './pem.ts';
export * from './keys.ts';
export * from './name.ts';
export * from './profile.ts';
export * from './cert.ts';
export * from './csr.ts';
export * from './request-signing.ts';
export * from './csr-sync.ts';
export * from './verify.ts';
export * from './files.ts';
export * from './kubeconfig.ts';
export * from './cluster-pki.ts';
export * from './etcd-pki.ts';
export { X509Certificate, Pkcs10CertificateRequest } from './x509.ts';
export * from './self-signed.ts';
export * from './service-account-keys.ts';
export * from './service-account-token.ts';

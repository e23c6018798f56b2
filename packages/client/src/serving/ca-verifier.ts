// A client certificate chain checked against one CA bundle with Go's rules (@kemu/pki's verifyCertificate, usage
// clientAuth), as Kubernetes' x509 authenticator does: the bundle of --client-ca-file or
// --requestheader-client-ca-file, or the same text read from the extension-apiserver-authentication ConfigMap.
import type { ChainVerifier } from './authn.ts';

export async function caVerifier(bundlePem: string, what: string): Promise<ChainVerifier> {
  const { parseCertificates, verifyCertificate, X509Certificate } = await import('@kemu/pki');
  const roots = parseCertificates(bundlePem, what);
  return (chain) => {
    let leaf;
    let intermediates;
    try {
      [leaf, ...intermediates] = chain.map((der) => new X509Certificate(der));
    } catch (e) {
      return { ok: false, reason: `x509: malformed certificate: ${(e as Error).message}` };
    }
    if (!leaf) return { ok: false, reason: 'no certificate' };
    const r = verifyCertificate(leaf, { roots, intermediates, usage: 'clientAuth' });
    if (!r.ok) return r;
    return { ok: true, commonName: leaf.subjectName.getField('CN')[0] ?? '', organizations: leaf.subjectName.getField('O') };
  };
}

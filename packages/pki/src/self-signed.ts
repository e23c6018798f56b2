// A serving certificate for a component started without one, as client-go's GenerateSelfSignedCertKey makes it
// (what kube-apiserver writes to --cert-dir, and the kubelet to its cert dir): a throw-away CA "<host>-ca@<unix>"
// signing "<host>@<unix>", both valid from an hour ago (clock skew) for a year; the cert file holds the
// certificate then the CA, the key file the PKCS#1 key.
import { generatePrivateKey, privateKeyPem } from './keys.ts';
import { certificatePem, issueCertificate } from './cert.ts';
import net from 'node:net';

export interface SelfSignedOptions {
  host: string;
  alternateIPs?: readonly string[];
  alternateDNS?: readonly string[];
  nowMs?: number;
  /** Default one year, as client-go. */
  maxAgeMs?: number;
}

export async function selfSignedServingCert(o: SelfSignedOptions): Promise<{ certPem: string; keyPem: string }> {
  const now = o.nowMs ?? Date.now();
  const unix = Math.floor(now / 1000);
  const notBefore = new Date(now - 3_600_000);
  const notAfter = new Date(notBefore.getTime() + (o.maxAgeMs ?? 365 * 24 * 3_600_000));
  const [caKey, key] = await Promise.all([generatePrivateKey(), generatePrivateKey()]);
  const ca = await issueCertificate(
    { subject: { CN: `${o.host}-ca@${unix}` }, publicKey: caKey, isCA: true, keyUsages: ['keyEncipherment', 'digitalSignature', 'keyCertSign'], notBefore, notAfter, serialNumber: '01' },
    { selfKey: caKey },
  );
  const hostIsIP = net.isIP(o.host) !== 0;
  const cert = await issueCertificate(
    {
      subject: { CN: `${o.host}@${unix}` },
      publicKey: key,
      keyUsages: ['keyEncipherment', 'digitalSignature'],
      extKeyUsages: ['serverAuth'],
      ipAddresses: [...(hostIsIP ? [o.host] : []), ...(o.alternateIPs ?? [])],
      dnsNames: [...(hostIsIP ? [] : [o.host]), ...(o.alternateDNS ?? [])],
      notBefore,
      notAfter,
      serialNumber: '02',
    },
    { cert: ca, key: caKey },
  );
  return { certPem: certificatePem(cert) + certificatePem(ca), keyPem: privateKeyPem(key) };
}

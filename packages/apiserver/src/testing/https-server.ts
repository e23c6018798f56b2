// Test helper: an HTTPS server on 127.0.0.1 with a throw-away CA and a serving certificate for 127.0.0.1 (and,
// when given, the Service name <service>.<namespace>.svc), as webhooks and aggregated API servers need. The
// handler gets each request once its body has been read whole. With clientCA the server asks for a client
// certificate signed by it but lets requests without one through (the handler checks socket.authorized).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { selfSignedServingCert } from '@kemu/pki';

export interface HttpsTestServer {
  port: number;
  /** base64 PEM of the CA, for a caBundle. */
  caBundle: string;
  url(path: string): string;
  close(): Promise<void>;
}

export interface HttpsTestServerOptions {
  service?: { name: string; namespace: string };
  /** PEM of the CA that signs client certificates. */
  clientCA?: string;
  /** Upgrade requests (WebSocket); without it they are refused by Node. */
  onUpgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
}

export async function startHttpsTestServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void,
  opts: HttpsTestServerOptions = {},
): Promise<HttpsTestServer> {
  const alternateDNS = opts.service ? [`${opts.service.name}.${opts.service.namespace}.svc`] : [];
  const { certPem, keyPem } = await selfSignedServingCert({ host: '127.0.0.1', alternateDNS });
  const clientAuth = opts.clientCA ? { ca: opts.clientCA, requestCert: true, rejectUnauthorized: false } : {};
  const server = https.createServer({ cert: certPem, key: keyPem, ...clientAuth }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  if (opts.onUpgrade) server.on('upgrade', opts.onUpgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // The chain's last certificate is the CA.
  const ca = certPem.slice(certPem.lastIndexOf('-----BEGIN CERTIFICATE-----'));
  return {
    port,
    caBundle: Buffer.from(ca).toString('base64'),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

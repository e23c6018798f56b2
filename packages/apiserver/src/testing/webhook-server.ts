// Test helper: an admission webhook on 127.0.0.1 over HTTPS with a throw-away CA (caBundle) whose certificate
// also names a Service (<service>.<namespace>.svc). The handler sees each AdmissionReview request and answers
// the response fields; the server fills apiVersion, kind and uid. Every request is kept for assertions.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedServingCert } from '@kemu/pki';

export type ReviewRequest = Record<string, unknown> & { uid: string; object?: Record<string, unknown> | null; oldObject?: Record<string, unknown> | null };
export type ReviewReply = Record<string, unknown> & { allowed: boolean };

export interface WebhookServer {
  port: number;
  /** base64 PEM of the CA, for clientConfig.caBundle. */
  caBundle: string;
  url(path: string): string;
  requests: Array<{ path: string; request: ReviewRequest }>;
  close(): Promise<void>;
}

/** Builds a JSONPatch reply (base64, patchType JSONPatch). */
export function patchReply(ops: unknown[], extra: Record<string, unknown> = {}): ReviewReply {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra };
}

export async function startWebhookServer(
  handler: (req: ReviewRequest, path: string) => ReviewReply | Promise<ReviewReply>,
  opts: { service?: { name: string; namespace: string } } = {},
): Promise<WebhookServer> {
  const alternateDNS = opts.service ? [`${opts.service.name}.${opts.service.namespace}.svc`] : [];
  const { certPem, keyPem } = await selfSignedServingCert({ host: '127.0.0.1', alternateDNS });
  const requests: WebhookServer['requests'] = [];
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: ReviewRequest };
        const path = req.url ?? '';
        requests.push({ path, request: review.request });
        const reply = await handler(review.request, path);
        const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...reply } });
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // The chain's last certificate is the CA.
  const ca = certPem.slice(certPem.lastIndexOf('-----BEGIN CERTIFICATE-----'));
  return {
    port,
    caBundle: Buffer.from(ca).toString('base64'),
    url: (path) => `https://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

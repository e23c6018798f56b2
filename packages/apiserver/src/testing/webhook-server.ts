// Test helper: an admission webhook on 127.0.0.1 over HTTPS with a throw-away CA (caBundle) whose certificate
// also names a Service (<service>.<namespace>.svc). The handler sees each AdmissionReview request and answers
// the response fields; the server fills apiVersion, kind and uid. Every request is kept for assertions.
// startConversionWebhookServer is the same for CRD conversion (ConversionReview).
import { startHttpsTestServer, type HttpsTestServer, type HttpsTestServerOptions } from './https-server.ts';

export type ReviewRequest = Record<string, unknown> & { uid: string; object?: Record<string, unknown> | null; oldObject?: Record<string, unknown> | null };
export type ReviewReply = Record<string, unknown> & { allowed: boolean };

export interface WebhookServer extends HttpsTestServer {
  requests: Array<{ path: string; request: ReviewRequest }>;
}

/** Builds a JSONPatch reply (base64, patchType JSONPatch). */
export function patchReply(ops: unknown[], extra: Record<string, unknown> = {}): ReviewReply {
  return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra };
}

export async function startWebhookServer(
  handler: (req: ReviewRequest, path: string) => ReviewReply | Promise<ReviewReply>,
  opts: { service?: { name: string; namespace: string } } = {},
): Promise<WebhookServer> {
  const requests: WebhookServer['requests'] = [];
  const srv = await serveJson(async (body, path) => {
    const review = body as { request: ReviewRequest };
    requests.push({ path, request: review.request });
    const reply = await handler(review.request, path);
    return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...reply } };
  }, opts);
  return { ...srv, requests };
}

export type ConversionRequest = { uid: string; desiredAPIVersion: string; objects: Array<Record<string, unknown>> };

export interface ConversionWebhookServer extends Omit<WebhookServer, 'requests'> {
  requests: Array<{ path: string; apiVersion: string; request: ConversionRequest }>;
}

/**
 * A CRD conversion webhook: each ConversionReview's objects go through convert (answered with result Success
 * and the review's apiVersion and uid); reply, when given and it answers something, is the whole response instead (for bad replies).
 */
export async function startConversionWebhookServer(
  convert: (obj: Record<string, unknown>, desiredAPIVersion: string) => Record<string, unknown>,
  opts: { service?: { name: string; namespace: string }; reply?: (req: ConversionRequest) => unknown } = {},
): Promise<ConversionWebhookServer> {
  const requests: ConversionWebhookServer['requests'] = [];
  const srv = await serveJson((body, path) => {
    const review = body as { apiVersion: string; request: ConversionRequest };
    requests.push({ path, apiVersion: review.apiVersion, request: review.request });
    const replied = opts.reply?.(review.request);
    if (replied !== undefined) return replied;
    const convertedObjects = review.request.objects.map((o) => convert(structuredClone(o), review.request.desiredAPIVersion));
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Success' }, convertedObjects } };
  }, opts);
  return { ...srv, requests };
}

/**
 * The usual example converter of a CronTab: v1beta1 has spec.cronSpec (a string), v1 has spec.schedule
 * ({ expression }); any other field is kept.
 */
export function cronTabConverter(obj: Record<string, unknown>, desiredAPIVersion: string): Record<string, unknown> {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  if (desiredAPIVersion.endsWith('/v1') && typeof spec.cronSpec === 'string') {
    spec.schedule = { expression: spec.cronSpec };
    delete spec.cronSpec;
  } else if (desiredAPIVersion.endsWith('/v1beta1') && typeof spec.schedule === 'object' && spec.schedule !== null) {
    spec.cronSpec = (spec.schedule as Record<string, unknown>).expression;
    delete spec.schedule;
  }
  return { ...obj, apiVersion: desiredAPIVersion };
}

/** An HTTPS JSON server on 127.0.0.1 with a throw-away CA; each POST body goes through handler. */
function serveJson(handler: (body: unknown, path: string) => unknown, opts: HttpsTestServerOptions): Promise<HttpsTestServer> {
  return startHttpsTestServer((req, res, body) => {
    void (async () => {
      const reply = await handler(JSON.parse(body.toString('utf8')), req.url ?? '');
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    })();
  }, opts);
}

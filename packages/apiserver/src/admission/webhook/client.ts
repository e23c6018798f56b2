// Calling a webhook: its URL, or its Service resolved through the Service's Endpoints (else its EndpointSlices) to one address
// (service-endpoint.ts: a selector-less Service with Endpoints on a host address reaches a webhook outside the cluster), over HTTPS
// verified with clientConfig.caBundle (the Service's DNS name is the TLS server name), with the timeout in the
// URL's ?timeout= as Kubernetes' REST client sends it. Errors read as Go's net/http ones.
import https from 'node:https';
import net from 'node:net';
import type { AdmissionContext } from '../types.ts';
import { isObj } from '../types.ts';
import { goNetError, resolveServiceEndpoint, type ListObjects } from '../../service-endpoint.ts';


/** An error calling the webhook (Kubernetes' ErrCallingWebhook reason): subject to the failurePolicy. */
export class WebhookCallError extends Error {}

export interface WebhookTarget {
  /** The URL as Kubernetes names it in errors (https://svc.ns.svc:443/path for a Service). */
  url: URL;
  /** Where to connect. */
  host: string;
  port: number;
  /** The TLS server name (the Service's DNS name, or the URL's host); an IP is verified as the host instead. */
  servername: string;
  ca?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export async function webhookTarget(clientConfig: unknown, ctx: AdmissionContext): Promise<WebhookTarget> {
  const cc = isObj(clientConfig) ? clientConfig : {};
  const ca = str(cc.caBundle) ? Buffer.from(str(cc.caBundle) ?? '', 'base64').toString('utf8') : undefined;
  const url = str(cc.url);
  if (url !== undefined) {
    const u = new URL(url);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { url: u, host, port: u.port ? Number(u.port) : 443, servername: host, ...(ca ? { ca } : {}) };
  }
  const svc = isObj(cc.service) ? cc.service : {};
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const dns = `${str(svc.name) ?? ''}.${str(svc.namespace) ?? ''}.svc`;
  const u = new URL(`https://${dns}:${port}${str(svc.path) ?? ''}`);
  let resolved: { host: string; port: number };
  try {
    const list: ListObjects = async (r, ns) => ctx.listObjects?.(r, ns);
    resolved = await resolveServiceEndpoint({ namespace: str(svc.namespace) ?? '', name: str(svc.name) ?? '', port }, list);
  } catch (e) {
    throw new WebhookCallError(`could not get REST client: ${(e as Error).message}`);
  }
  return { url: u, ...resolved, servername: dns, ...(ca ? { ca } : {}) };
}

// One keep-alive pool for every webhook (Node keys its connections by host, port, CA and server name), so a
// webhook called per request costs no TLS handshake each time, as Kubernetes' cached REST clients.
const agent = new https.Agent({ keepAlive: true });

/** POSTs body; resolves to the parsed JSON reply; throws WebhookCallError (prefixed "failed to call webhook: "). */
export function postWebhook(t: WebhookTarget, body: unknown, timeoutSeconds: number): Promise<unknown> {
  const url = new URL(t.url);
  // The REST client's timeout goes in the URL too (admission: the webhook's timeoutSeconds; conversion: 30 s).
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const shown = `Post "${url.toString()}"`;
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const fail = (msg: string) => reject(new WebhookCallError(`failed to call webhook: ${shown}: ${msg}`));
    const req = https.request(
      {
        method: 'POST',
        host: t.host,
        port: t.port,
        path: url.pathname + url.search,
        ...(net.isIP(t.servername) === 0 ? { servername: t.servername } : {}),
        ...(t.ca ? { ca: t.ca } : {}),
        headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': payload.length, host: url.host },
        timeout: timeoutSeconds * 1000,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => fail(goNetError(e, t)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            if ((res.statusCode ?? 0) >= 300) return fail(`an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`);
            return reject(new WebhookCallError(`received invalid webhook response: ${text === '' ? 'unexpected end of JSON input' : 'invalid character in response body'}`));
          }
          if ((res.statusCode ?? 0) >= 300) {
            const m = isObj(parsed) && typeof parsed.message === 'string' ? parsed.message : `the server responded with the status code ${res.statusCode} but did not return more information`;
            return fail(m);
          }
          resolve(parsed);
        });
      },
    );
    const deadline = setTimeout(() => {
      req.destroy();
      fail(`context deadline exceeded`);
    }, timeoutSeconds * 1000);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => {
      req.destroy();
      fail('context deadline exceeded');
    });
    req.on('error', (e) => {
      clearTimeout(deadline);
      fail(goNetError(e, t));
    });
    req.end(payload);
  });
}

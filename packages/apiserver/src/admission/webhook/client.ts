// Calling a webhook: its URL, or its Service resolved through the Service's Endpoints (else its EndpointSlices) to one address (so a
// selector-less Service with Endpoints on a host address reaches a webhook outside the cluster), over HTTPS
// verified with clientConfig.caBundle (the Service's DNS name is the TLS server name), with the timeout in the
// URL's ?timeout= as Kubernetes' REST client sends it. Errors read as Go's net/http ones.
import https from 'node:https';
import net from 'node:net';
import { R, type KubeObject } from '@kemu/api';
import type { AdmissionContext } from '../types.ts';
import { isObj } from '../types.ts';

type Obj = Record<string, unknown>;

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

/** k8s.io/apiserver's ResolveEndpoint: the Service's port, then a ready address of its Endpoints on that port's name. */
async function resolveService(svcRef: Obj, ctx: AdmissionContext): Promise<{ host: string; port: number }> {
  const ns = str(svcRef.namespace) ?? '';
  const name = str(svcRef.name) ?? '';
  const port = typeof svcRef.port === 'number' ? svcRef.port : 443;
  const find = async (r: typeof R.services): Promise<KubeObject | undefined> => (await ctx.listObjects?.(r, ns))?.find((o) => o.metadata.name === name);
  const svc = await find(R.services);
  if (!svc) throw new WebhookCallError(`service "${name}" not found`);
  const spec = isObj(svc.spec) ? svc.spec : {};
  if (spec.type === 'ExternalName') throw new WebhookCallError(`unsupported service type "ExternalName"`);
  const svcPort = (Array.isArray(spec.ports) ? spec.ports : []).find((p): p is Obj => isObj(p) && p.port === port);
  if (!svcPort) throw new WebhookCallError(`no service port ${port} found for service "${name}"`);
  const portName = str(svcPort.name) ?? '';
  const ep = await find(R.endpoints);
  for (const subset of Array.isArray(ep?.subsets) ? ep.subsets : []) {
    if (!isObj(subset)) continue;
    const p = (Array.isArray(subset.ports) ? subset.ports : []).find((x): x is Obj => isObj(x) && (str(x.name) ?? '') === portName);
    const addrs = (Array.isArray(subset.addresses) ? subset.addresses : []).filter(isObj);
    if (!p || typeof p.port !== 'number' || addrs.length === 0) continue;
    const a = addrs[Math.floor(Math.random() * addrs.length)];
    const ip = str(a?.ip);
    if (ip) return { host: ip, port: p.port };
  }
  // A Service whose endpoints are published only as EndpointSlices (kubernetes.io/service-name).
  const slices = ((await ctx.listObjects?.(R.endpointslices, ns)) ?? []).filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name);
  for (const slice of slices) {
    const p = (Array.isArray(slice.ports) ? slice.ports : []).find((x): x is Obj => isObj(x) && (str(x.name) ?? '') === portName);
    if (!p || typeof p.port !== 'number') continue;
    const ready = (Array.isArray(slice.endpoints) ? slice.endpoints : []).filter(isObj).filter((e) => !isObj(e.conditions) || e.conditions.ready !== false);
    const ips = ready.flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.filter((a): a is string => typeof a === 'string') : []));
    const ip = ips[Math.floor(Math.random() * ips.length)];
    if (ip) return { host: ip, port: p.port };
  }
  throw new WebhookCallError(`no endpoints available for service "${name}"`);
}

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
    resolved = await resolveService(svc, ctx);
  } catch (e) {
    throw new WebhookCallError(`could not get REST client: ${(e as Error).message}`);
  }
  return { url: u, ...resolved, servername: dns, ...(ca ? { ca } : {}) };
}

/** Go's wording for the errors Node reports. */
function goError(e: NodeJS.ErrnoException, t: WebhookTarget): string {
  const addr = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${t.servername}`;
    default:
      return e.message;
  }
}

// One keep-alive pool for every webhook (Node keys its connections by host, port, CA and server name), so a
// webhook called per request costs no TLS handshake each time, as Kubernetes' cached REST clients.
const agent = new https.Agent({ keepAlive: true });

/** POSTs body; resolves to the parsed JSON reply; throws WebhookCallError (prefixed "failed to call webhook: "). */
export function postWebhook(t: WebhookTarget, body: unknown, timeoutSeconds: number): Promise<unknown> {
  const url = new URL(t.url);
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
        res.on('error', (e) => fail(goError(e, t)));
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
      fail(goError(e, t));
    });
    req.end(payload);
  });
}

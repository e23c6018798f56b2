// pods/proxy, services/proxy and nodes/proxy, as kube-apiserver's ProxyREST: every method, the path after
// /proxy passed on with the query. A pod's port is reached through its node's kubelet (kemu's /kemu/proxy: the
// emulated servers live there, not at the pod IP); a service picks one ready endpoint address that is a pod
// (ResourceLocation's random subset and address); a node's path goes to its kubelet's API. Errors are
// Kubernetes': 404 for the object, 503 "no endpoints available for service", 503 "error trying to reach
// service: …" when nothing answers, 400 "address not allowed" for a pod without an IP, and a 301 to …/proxy/
// for an empty path.
import { errors, R, StatusError, toStatus, type KubeObject } from '@kemu/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from '../context.ts';
import { KubeletRequestError } from '../kubelet-client/client.ts';
import { joinHostPort, NoPreferredAddressError } from '../kubelet-client/connection-info.ts';
import { CORS_HEADERS, pathPrepend, rewriteBody, rewritesBody, rewriteURL, type RewriteTarget } from './proxy-rewrite.ts';

export interface ProxyTarget {
  resource: 'pods' | 'services' | 'nodes';
  namespace?: string;
  /** The URL segment: [scheme:]name[:port]. */
  id: string;
  /** The path after /proxy, raw (undefined for …/proxy itself). */
  rest: string | undefined;
}

const POD_OR_SVC = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|services)\/([^/]+)\/proxy(\/.*)?$/;
const NODE = /^\/api\/v1\/nodes\/([^/]+)\/proxy(\/.*)?$/;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The proxy a path names, or undefined when it is not a …/proxy path. */
export function parseProxyPath(pathname: string): ProxyTarget | undefined {
  const m = POD_OR_SVC.exec(pathname);
  if (m) return { resource: m[2] as 'pods' | 'services', namespace: decode(m[1] ?? ''), id: decode(m[3] ?? ''), rest: m[4] };
  const n = NODE.exec(pathname);
  if (n) return { resource: 'nodes', id: decode(n[1] ?? ''), rest: n[2] };
  return undefined;
}

/** utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port" (scheme http or https). */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0] ?? '';
  else if (parts.length === 2) [name, port] = [parts[0] ?? '', parts[1] ?? ''];
  else if (parts.length === 3) [scheme, name, port] = [parts[0] ?? '', parts[1] ?? '', parts[2] ?? ''];
  else return undefined;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name, port };
}

interface Location {
  /** The pod whose port to reach (through its node's kubelet), or the node whose kubelet API. */
  kind: 'pod' | 'node';
  node: KubeObject;
  namespace?: string;
  pod?: string;
  port?: number;
  /** For nodes: a port given in the URL overrides the kubelet's. */
  nodePort?: number;
  /** The host:port a real apiserver would dial (the pod's IP and port), which links in its pages may name. */
  host: string;
}

function firstContainerPort(pod: KubeObject): number | undefined {
  const spec = (pod.spec ?? {}) as { containers?: { ports?: { containerPort?: number }[] }[] };
  for (const c of spec.containers ?? []) if (c.ports && c.ports.length > 0) return c.ports[0]?.containerPort;
  return undefined;
}

async function podNode(ctx: ApiContext, pod: KubeObject): Promise<KubeObject> {
  const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
  // A pod with an IP has a node; without one the IP check has already refused it.
  return ctx.registry.get(R.nodes, undefined, nodeName);
}

async function podLocation(ctx: ApiContext, namespace: string, id: string): Promise<Location> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = await ctx.registry.get(R.pods, namespace, parsed.name);
  const ip = ((pod.status ?? {}) as { podIP?: string }).podIP ?? '';
  if (ip === '') throw errors.badRequest('address not allowed');
  const port = parsed.port !== '' ? Number(parsed.port) : (firstContainerPort(pod) ?? (parsed.scheme === 'https' ? 443 : 80));
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new StatusError('ServiceUnavailable', `error trying to reach service: dial tcp: address ${parsed.port}: invalid port`);
  return { kind: 'pod', node: await podNode(ctx, pod), namespace, pod: parsed.name, port, host: joinHostPort(ip, port) };
}

interface EndpointSubset {
  addresses?: { ip?: string; targetRef?: { kind?: string; name?: string; namespace?: string } }[];
  ports?: { name?: string; port?: number }[];
}

function randomInt(n: number): number {
  return Math.floor(Math.random() * n);
}

async function serviceLocation(ctx: ApiContext, namespace: string, id: string): Promise<Location> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid service request ${JSON.stringify(id)}`);
  const { name } = parsed;
  let portStr = parsed.port;
  const svc = await ctx.registry.get(R.services, namespace, name);
  if (/^\d+$/.test(portStr)) {
    const num = Number(portStr);
    const ports = ((svc.spec ?? {}) as { ports?: { name?: string; port?: number }[] }).ports ?? [];
    const found = ports.find((p) => p.port === num);
    if (!found) throw new StatusError('ServiceUnavailable', `no service port ${num} found for service "${name}"`);
    portStr = found.name ?? '';
  }
  const eps = await ctx.registry.get(R.endpoints, namespace, name);
  const subsets = ((eps as KubeObject & { subsets?: EndpointSubset[] }).subsets ?? []) as EndpointSubset[];
  if (subsets.length === 0) throw new StatusError('ServiceUnavailable', `no endpoints available for service "${name}"`);
  const seed = randomInt(subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(seed + i) % subsets.length] as EndpointSubset;
    const addresses = ss.addresses ?? [];
    if (addresses.length === 0) continue;
    for (const p of ss.ports ?? []) {
      if ((p.name ?? '') !== portStr) continue;
      const aSeed = randomInt(addresses.length);
      for (let tries = 0; tries < addresses.length; tries++) {
        const addr = addresses[(aSeed + tries) % addresses.length];
        // isValidAddress: only addresses that are pods (with that IP) are proxied to.
        const ref = addr?.targetRef;
        if (!ref || ref.kind !== 'Pod' || !ref.name) continue;
        let pod: KubeObject;
        try {
          pod = await ctx.registry.get(R.pods, ref.namespace ?? namespace, ref.name);
        } catch {
          continue;
        }
        if (((pod.status ?? {}) as { podIP?: string }).podIP !== addr?.ip) continue;
        return { kind: 'pod', node: await podNode(ctx, pod), namespace: ref.namespace ?? namespace, pod: ref.name, port: p.port ?? 0, host: joinHostPort(addr?.ip ?? '', p.port ?? 0) };
      }
    }
  }
  throw new StatusError('ServiceUnavailable', `no endpoints available for service "${name}"`);
}

async function nodeLocation(ctx: ApiContext, id: string): Promise<Location> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw errors.badRequest(`invalid node request ${JSON.stringify(id)}`);
  const node = await ctx.registry.get(R.nodes, undefined, parsed.name);
  const nodePort = parsed.port !== '' ? Number(parsed.port) : undefined;
  return { kind: 'node', node, ...(nodePort !== undefined && Number.isInteger(nodePort) ? { nodePort } : {}), host: '' };
}

/** Request headers that are not passed on: hop-by-hop ones and the caller's own credentials. */
const DROP = new Set(['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization', 'content-length', 'impersonate-user', 'impersonate-group', 'impersonate-uid']);
const DROP_BACK = new Set(['connection', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-kemu-proxy-error']);

function sendStatus(res: ServerResponse, e: StatusError): void {
  const st = toStatus(e);
  const body = JSON.stringify(st);
  res.writeHead(st.code ?? 500, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface ProxyRequest {
  method: string;
  headers: IncomingMessage['headers'];
  /** The raw query string (without "?"). */
  query: string;
  body: Buffer | undefined;
  /** The request path, for the empty-path redirect and the rewritten links' prefix. */
  pathname: string;
  /** The client's address (X-Forwarded-For). */
  remoteAddress?: string;
}

/** Where a proxy request goes: the kubelet URL to ask and what the answer's links are rewritten against. */
export interface ProxyBackend {
  url: URL;
  rewrite: RewriteTarget;
  /** X-Forwarded-Uri: the path the client asked for (Transport.RoundTrip's forwardedURI). */
  forwardedUri: string;
}

/** The backend of a proxy request; Status errors for the object, its endpoints or its node. */
export async function proxyBackend(ctx: ApiContext, t: ProxyTarget, req: Pick<ProxyRequest, 'query' | 'pathname' | 'headers'>): Promise<ProxyBackend> {
  const ns = t.namespace ?? '';
  const loc = t.resource === 'pods' ? await podLocation(ctx, ns, t.id) : t.resource === 'services' ? await serviceLocation(ctx, ns, t.id) : await nodeLocation(ctx, t.id);
  const kubelet = ctx.kubeletClient;
  const rest = t.rest ?? '/';
  try {
    const info = kubelet.connectionInfo(loc.node);
    if (loc.nodePort !== undefined) info.port = loc.nodePort;
    const path = loc.kind === 'pod' ? `/kemu/proxy/${loc.namespace}/${loc.pod}/${loc.port}${rest}` : rest;
    const prepend = pathPrepend(req.pathname, rest);
    return {
      url: kubelet.url(info, path, req.query),
      rewrite: { pathPrepend: prepend, backendHost: loc.kind === 'pod' ? loc.host : joinHostPort(info.hostname, info.port), requestHost: String(req.headers.host ?? '') },
      forwardedUri: req.pathname,
    };
  } catch (e) {
    if (e instanceof NoPreferredAddressError) throw new StatusError('InternalError', e.message);
    throw e;
  }
}

/** The client's address for X-Forwarded-For (ReverseProxy appends it to what the client sent). */
export function forwardedFor(headers: IncomingMessage['headers'], remote: string | undefined): string | undefined {
  if (!remote) return undefined;
  const ip = remote.replace(/^::ffff:/, '');
  const prior = headers['x-forwarded-for'];
  const before = Array.isArray(prior) ? prior.join(', ') : prior;
  return before ? `${before}, ${ip}` : ip;
}

async function readAll(r: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Serves a proxy request to its end on `res`; errors before the backend answers are thrown (Status errors). */
export async function serveProxy(ctx: ApiContext, t: ProxyTarget, req: ProxyRequest, res: ServerResponse): Promise<void> {
  const backend = await proxyBackend(ctx, t, req);
  if (t.rest === undefined && t.resource !== 'nodes') {
    // UpgradeAwareHandler: an empty location path redirects to the same path with a trailing slash.
    res.writeHead(301, { location: `${req.pathname}/${req.query ? `?${req.query}` : ''}`, 'content-type': 'text/html; charset=utf-8' });
    res.end(`<a href="${req.pathname}/">Moved Permanently</a>.\n\n`);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROP.has(k)) headers[k] = v;
  headers['x-forwarded-uri'] = backend.forwardedUri;
  const xff = forwardedFor(req.headers, req.remoteAddress);
  if (xff) headers['x-forwarded-for'] = xff;
  let answer: IncomingMessage;
  try {
    const r = await ctx.kubeletClient.request(backend.url, { method: req.method, headers, ...(req.body ? { body: req.body } : {}) });
    answer = r.response;
    if ('socket' in r) r.socket.destroy();
  } catch (e) {
    // The transport's own error (RoundTrip's), without url.Error's `Get "<url>": ` that client.Do adds.
    if (e instanceof KubeletRequestError) throw new StatusError('ServiceUnavailable', `error trying to reach service: ${e.message.replace(/^[A-Za-z]+ "[^"]*": /, '')}`);
    throw e;
  }
  if (answer.headers['x-kemu-proxy-error']) {
    throw new StatusError('ServiceUnavailable', `error trying to reach service: ${(await readAll(answer)).toString('utf8')}`);
  }
  const back: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !DROP_BACK.has(k) && !CORS_HEADERS.includes(k)) back[k] = v;
  // A redirect's Location and an HTML page's links are put under the proxy prefix (proxy-rewrite.ts).
  if (typeof back.location === 'string') back.location = rewriteURL(back.location, backend.rewrite);
  else if (rewritesBody(answer.headers) && req.method !== 'HEAD') {
    const raw = await readAll(answer);
    let body: Buffer;
    try {
      body = rewriteBody(raw, answer.headers['content-encoding'], backend.rewrite);
    } catch {
      // A body that does not decode goes as it came (the transport logs and passes the answer on).
      body = raw;
    }
    back['content-length'] = String(body.length);
    res.writeHead(answer.statusCode ?? 502, back);
    res.end(body);
    return;
  }
  res.writeHead(answer.statusCode ?? 502, back);
  res.on('close', () => answer.destroy());
  answer.pipe(res);
}

/** serveProxy with its errors answered as Statuses (for a response fastify has let go of). */
export async function serveProxyOrStatus(ctx: ApiContext, t: ProxyTarget, req: ProxyRequest, res: ServerResponse): Promise<void> {
  try {
    await serveProxy(ctx, t, req, res);
  } catch (e) {
    if (res.headersSent) return void res.destroy();
    sendStatus(res, e instanceof StatusError ? e : new StatusError('InternalError', `Internal error occurred: ${String(e instanceof Error ? e.message : e)}`));
  }
}

// The kubelet's secure port (pkg/kubelet/server's auth filter, BuildAuthn/BuildAuthz): client certificates from
// --client-ca-file, bearer tokens by TokenReview with --authentication-token-webhook, anonymous unless
// --anonymous-auth=false; --authorization-mode AlwaysAllow or Webhook, where every request is a
// SubjectAccessReview on the node: /metrics → nodes/metrics, /stats → nodes/stats, /logs → nodes/log, anything
// else (/healthz too) → nodes/proxy. Refusals are the kubelet's plain-text lines: "Unauthorized",
// "Forbidden (user=…, verb=…, resource=nodes, subresource=…)", "Authorization error (…)".
import fs from 'node:fs';
import type { HealthGuard, Logger } from '@kemu/base';
import type { RestClient } from '../rest.ts';
import { DelegatingAuthenticator } from './authn.ts';
import { SubjectAccessReviewer } from './authz.ts';
import { caVerifier } from './ca-verifier.ts';
import type { KubeletServingFlagValues } from './flags.ts';
import type { SecureServing } from './secure-serving.ts';
import { servingCert } from './serving-cert.ts';

export interface KubeletServingOptions {
  /** The node the attributes name (the first emulated node). */
  nodeName: string;
  /** Host name of the self-signed certificate (--hostname-override or the host's). */
  hostname: string;
  /** The kubelet's own client: it sends the reviews. */
  client: RestClient;
  logger: Logger;
  /** An issued serving certificate (--rotate-server-certificates) to serve with instead of the files or a self-signed one. */
  servingCert?: { cert: string; key: string };
  /** The node a request is about when the process emulates several (a pod's node for /containerLogs); else nodeName. */
  nodeFor?: (path: string) => string | undefined;
}

const VERBS: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/** The subresource of nodes/<name> a kubelet path is authorized as. */
export function kubeletSubresource(path: string): string {
  if (isSubpath(path, '/stats')) return 'stats';
  if (isSubpath(path, '/metrics')) return 'metrics';
  if (isSubpath(path, '/logs')) return 'log';
  if (isSubpath(path, '/checkpoint')) return 'checkpoint';
  return 'proxy';
}

const text = (status: number, body: string) => ({ status, contentType: 'text/plain', body });

/** undefined when --secure-port is 0. Throws on a bad mode or unreadable files. */
export async function kubeletSecureServing(f: KubeletServingFlagValues, o: KubeletServingOptions): Promise<SecureServing | undefined> {
  if (f['secure-port'] === 0) return undefined;
  const mode = f['authorization-mode'];
  if (mode === '') throw new Error('no authorization mode specified');
  if (mode !== 'AlwaysAllow' && mode !== 'Webhook') throw new Error(`unknown authorization mode ${mode}`);
  const cert = o.servingCert ?? await servingCert({
    certFile: f['tls-cert-file'],
    keyFile: f['tls-private-key-file'],
    certDir: f['cert-dir'],
    pairName: 'kubelet',
    bindAddress: f['bind-address'],
    selfSignedHost: o.hostname,
    memoryIfUnwritable: true,
  });
  if ('unwritable' in cert && cert.unwritable) o.logger.warn({ certDir: f['cert-dir'], err: cert.unwritable }, 'Unable to write the self-signed serving certificate; keeping it in memory');
  if (!f['anonymous-auth'] && !f['client-ca-file'] && !f['authentication-token-webhook']) throw new Error('No authentication method configured');
  let clientCAPem: string | undefined;
  if (f['client-ca-file']) {
    try {
      clientCAPem = fs.readFileSync(f['client-ca-file'], 'utf8');
    } catch (e) {
      throw new Error(`unable to load client CA file ${f['client-ca-file']}: ${(e as Error).message}`);
    }
  }
  const authn = new DelegatingAuthenticator({
    ...(clientCAPem ? { clientCert: await caVerifier(clientCAPem, f['client-ca-file']) } : {}),
    ...(f['authentication-token-webhook'] ? { tokenReviewClient: o.client } : {}),
    cacheTtlMs: f['authentication-token-webhook-cache-ttl'],
    anonymous: f['anonymous-auth'],
  });
  const reviewer =
    mode === 'Webhook'
      ? new SubjectAccessReviewer(o.client, { allowTtlMs: f['authorization-webhook-cache-authorized-ttl'], denyTtlMs: f['authorization-webhook-cache-unauthorized-ttl'] })
      : undefined;
  const guard: HealthGuard = async (req, path) => {
    let user;
    try {
      user = await authn.authenticate(req);
    } catch (e) {
      o.logger.debug({ err: (e as Error).message }, 'Unable to authenticate the request due to an error');
      return text(401, 'Unauthorized');
    }
    if (!reviewer) return undefined;
    const verb = VERBS[req.method ?? 'GET'] ?? '';
    const subresource = kubeletSubresource(path);
    const who = `user=${user.username}, verb=${verb}, resource=nodes, subresource=${subresource}`;
    try {
      const r = await reviewer.review(user, { resourceAttributes: { verb, version: 'v1', resource: 'nodes', subresource, name: o.nodeFor?.(path) ?? o.nodeName } });
      if (r.decision === 'allow') return undefined;
    } catch (e) {
      o.logger.error({ err: (e as Error).message, user: user.username, verb, resource: 'nodes', subresource }, 'Authorization error');
      return text(500, `Authorization error (${who})`);
    }
    return text(403, `Forbidden (${who})`);
  };
  return { tls: { cert: cert.cert, key: cert.key, ...(clientCAPem ? { clientCA: clientCAPem } : {}) }, guard };
}

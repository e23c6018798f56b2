// Everything a component's secure port needs, from its serving flags: the certificate, the TLS client CA pool,
// and the authentication/authorization guard, put together as kube-controller-manager and kube-scheduler do
// (SecureServingOptions + DelegatingAuthenticationOptions + DelegatingAuthorizationOptions, both kubeconfigs
// optional: without --authentication-kubeconfig no token is reviewed and nothing is looked up; without
// --authorization-kubeconfig only system:masters and the always-allowed paths get through). Missing client CA
// settings are looked up in kube-system/extension-apiserver-authentication, which kube-apiserver writes.
import fs from 'node:fs';
import { goErrnoReason, type HealthGuard, type HealthServer, type HealthTls, type Logger } from '@kemu/base';
import { R, StatusError, type KubeObject } from '@kemu/api';
import { loadClientConfig } from '../config.ts';
import { RestClient } from '../rest.ts';
import { DelegatingAuthenticator, type ChainVerifier, type RequestHeaderConfig } from './authn.ts';
import { DelegatingAuthorizer } from './authz.ts';
import { caVerifier } from './ca-verifier.ts';
import type { ServingFlagValues } from './flags.ts';
import { delegatingGuard, type RequestInfoResolver } from './guard.ts';
import { servingCert } from './serving-cert.ts';

export const AUTHENTICATION_CONFIGMAP = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;
const CM = `configmap/${AUTHENTICATION_CONFIGMAP.name} in ${AUTHENTICATION_CONFIGMAP.namespace}`;

export interface SecureServingOptions {
  /** Names the generated files in --cert-dir (Kubernetes' PairName). */
  pairName: string;
  logger: Logger;
  userAgent: string;
  /** An aggregated API server's resource requests, authorized by their attributes rather than their path. */
  requestInfo?: RequestInfoResolver;
}

export interface SecureServing {
  tls: HealthTls;
  guard: HealthGuard;
  /**
   * Keeps the server's client CAs in step with extension-apiserver-authentication when they come from it (a
   * no-op otherwise); returns the function that stops following.
   */
  follow?(server: HealthServer | undefined, refreshMs?: number): () => void;
}

function reviewClient(kubeconfig: string, what: 'authentication' | 'authorization', o: SecureServingOptions, logger: Logger): RestClient | undefined {
  if (!kubeconfig) return undefined;
  let config;
  try {
    // High limits, as Kubernetes sets them: this client paces every request the port serves.
    config = loadClientConfig({ kubeconfig, qps: 200, burst: 400, userAgent: o.userAgent });
  } catch (e) {
    const msg = `failed to get delegated ${what} kubeconfig: ${(e as Error).message}`;
    throw new Error(what === 'authentication' ? `failed to get delegated authentication kubeconfig: ${msg}` : msg);
  }
  return new RestClient({ ...config, timeoutMs: 10_000 }, { logger });
}

function readBundle(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`unable to load client CA provider: ${file}: ${goErrnoReason(e)}`);
  }
}

function jsonList(v: unknown): string[] {
  if (typeof v !== 'string' || v === '') return [];
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The ConfigMap's data, undefined when it does not exist; throws on any other failure. */
async function lookup(client: RestClient): Promise<Record<string, string> | undefined> {
  try {
    const cm = await client.get<KubeObject>(R.configmaps, AUTHENTICATION_CONFIGMAP.namespace, AUTHENTICATION_CONFIGMAP.name);
    return (cm.data ?? {}) as Record<string, string>;
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return undefined;
    throw e;
  }
}

interface CAState {
  clientCert?: ChainVerifier;
  requestHeader?: RequestHeaderConfig;
  /** Both bundles, named in the TLS certificate request. */
  pool: string;
}

/** The verifiers from the flags' bundles, completed from the ConfigMap's data where a flag is not given. */
async function caState(f: ServingFlagValues, fromFlags: { clientCA?: string; requestHeaderCA?: string }, data: Record<string, string> | undefined): Promise<CAState> {
  const clientCAPem = fromFlags.clientCA ?? (data?.['client-ca-file'] || undefined);
  let requestHeaderPem = fromFlags.requestHeaderCA;
  let headers: Omit<RequestHeaderConfig, 'verify'> = {
    usernameHeaders: f['requestheader-username-headers'],
    groupHeaders: f['requestheader-group-headers'],
    extraHeaderPrefixes: f['requestheader-extra-headers-prefix'],
    allowedNames: f['requestheader-allowed-names'],
  };
  if (requestHeaderPem === undefined && data?.['requestheader-client-ca-file']) {
    requestHeaderPem = data['requestheader-client-ca-file'];
    headers = {
      usernameHeaders: jsonList(data['requestheader-username-headers']),
      groupHeaders: jsonList(data['requestheader-group-headers']),
      extraHeaderPrefixes: jsonList(data['requestheader-extra-headers-prefix']),
      allowedNames: jsonList(data['requestheader-allowed-names']),
    };
  }
  const state: CAState = { pool: [clientCAPem, requestHeaderPem].filter((p): p is string => !!p).join('\n') };
  try {
    if (clientCAPem) state.clientCert = await caVerifier(clientCAPem, f['client-ca-file'] || `client-ca-file in ${CM}`);
    if (requestHeaderPem) state.requestHeader = { ...headers, verify: await caVerifier(requestHeaderPem, f['requestheader-client-ca-file'] || `requestheader-client-ca-file in ${CM}`) };
  } catch (e) {
    throw new Error(`unable to load client CA provider: ${(e as Error).message}`);
  }
  return state;
}

/** undefined when --secure-port is 0. Throws with Kubernetes' start-up messages on bad files or a failed lookup. */
export async function secureServing(f: ServingFlagValues, o: SecureServingOptions): Promise<SecureServing | undefined> {
  if (f['secure-port'] === 0) return undefined;
  const log = o.logger;
  const cert = await servingCert({
    certFile: f['tls-cert-file'],
    keyFile: f['tls-private-key-file'],
    certDir: f['cert-dir'],
    pairName: o.pairName,
    bindAddress: f['bind-address'],
  });
  if (cert.source === 'generated-in-memory') log.info('Generated self-signed cert in-memory');
  if (cert.source === 'generated-in-cert-dir') log.info(`Generated self-signed cert (${cert.certFile}, ${cert.keyFile})`);

  const authnClient = reviewClient(f['authentication-kubeconfig'], 'authentication', o, log);
  const authzClient = reviewClient(f['authorization-kubeconfig'], 'authorization', o, log);
  const skipLookup = f['authentication-skip-lookup'];

  const fromFlags = {
    ...(f['client-ca-file'] ? { clientCA: readBundle(f['client-ca-file']) } : {}),
    ...(f['requestheader-client-ca-file'] ? { requestHeaderCA: readBundle(f['requestheader-client-ca-file']) } : {}),
  };
  const lookUpClientCA = fromFlags.clientCA === undefined && !skipLookup;
  const lookUpRequestHeader = fromFlags.requestHeaderCA === undefined && !skipLookup;
  if (lookUpClientCA && !authnClient) {
    log.warn(`No authentication-kubeconfig provided in order to lookup client-ca-file in ${CM}, so client certificate authentication won't work.`);
  }
  if (lookUpRequestHeader && !authnClient) {
    log.warn(`No authentication-kubeconfig provided in order to lookup requestheader-client-ca-file in ${CM}, so request-header client certificate authentication won't work.`);
  }
  const lookupClient = authnClient && (lookUpClientCA || lookUpRequestHeader) ? authnClient : undefined;
  let data: Record<string, string> | undefined;
  if (lookupClient) {
    try {
      data = await lookup(lookupClient);
    } catch (e) {
      const msg = (e as Error).message;
      if (!lookUpRequestHeader) {
        log.warn(`Unable to look up client-ca-file in ${CM}: ${msg}`);
      } else if (f['authentication-tolerate-lookup-failure']) {
        log.warn(`Error looking up in-cluster authentication configuration: ${msg}`);
        log.warn('Continuing without authentication configuration. This may treat all requests as anonymous.');
        log.warn('To require authentication configuration lookup to succeed, set --authentication-tolerate-lookup-failure=false');
      } else {
        throw new Error(`unable to load configmap based request-header-client-ca-file: ${msg}`);
      }
    }
  }
  const keep = (d: Record<string, string> | undefined) =>
    d && Object.fromEntries(Object.entries(d).filter(([k]) => (k === 'client-ca-file' ? lookUpClientCA : k.startsWith('requestheader-') && lookUpRequestHeader)));
  let seen = JSON.stringify(keep(data) ?? {});
  const cas = await caState(f, fromFlags, keep(data));
  if (!authzClient) log.warn("No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work.");

  const authn = new DelegatingAuthenticator({
    ...(cas.requestHeader ? { requestHeader: cas.requestHeader } : {}),
    ...(cas.clientCert ? { clientCert: cas.clientCert } : {}),
    ...(authnClient ? { tokenReviewClient: authnClient } : {}),
    cacheTtlMs: f['authentication-token-webhook-cache-ttl'],
  });
  const authz = new DelegatingAuthorizer({
    alwaysAllowGroups: ['system:masters'],
    alwaysAllowPaths: f['authorization-always-allow-paths'],
    ...(authzClient ? { subjectAccessReviewClient: authzClient } : {}),
    allowTtlMs: f['authorization-webhook-cache-authorized-ttl'],
    denyTtlMs: f['authorization-webhook-cache-unauthorized-ttl'],
  });
  const tlsOf = (pool: string): HealthTls => ({ cert: cert.cert, key: cert.key, ...(pool ? { clientCA: pool } : {}), ...(lookupClient ? { requestClientCert: true } : {}) });
  return {
    tls: tlsOf(cas.pool),
    guard: delegatingGuard(authn, authz, log, o.requestInfo),
    // Kubernetes watches the ConfigMap; kemu reads it again every refreshMs and swaps the CAs when it changed.
    follow(server, refreshMs = 10_000) {
      if (!lookupClient || !server) return () => undefined;
      const timer = setInterval(() => {
        void (async () => {
          const next = keep(await lookup(lookupClient));
          const text = JSON.stringify(next ?? {});
          if (text === seen) return;
          const state = await caState(f, fromFlags, next);
          seen = text;
          authn.setCertificateAuthorities({ requestHeader: state.requestHeader, clientCert: state.clientCert });
          server.setTls?.(tlsOf(state.pool));
          log.info(`Loaded a new client CA from ${CM}`);
        })().catch((e: unknown) => log.warn(`Unable to refresh the authentication configuration from ${CM}: ${(e as Error).message}`));
      }, refreshMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

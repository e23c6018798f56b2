// kube-apiserver: flags with Kubernetes' names and defaults, the store from --etcd-servers or
// --datastore-endpoint (storage-backend.ts), the bootstrap objects (system namespaces, default/kubernetes Service, this replica's identity Lease),
// then HTTPS on --bind-address:--secure-port and, when asked, plain HTTP on --insecure-port (serving.ts).
import { LOGGING_FORMAT_FLAG, createLogger, loggingFormatFlag, onShutdown, parseCommandLine, parseServiceClusterIPRanges } from '@kemu/base';
import { openBackend } from '@kemu/store';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { AUDIT_FLAGS, auditFromFlags, validateAuditFlags } from './audit/options.ts';
import { AUTHZ_FLAGS, parseAuthorizationModes } from './authz/modes.ts';
import { aggregateMessage } from './authz/union.ts';
import { COMPAT_FLAGS, checkCompatFlags, logNotInEffect } from './compat-flags.ts';
import { EVENT_TTL_FLAGS, startEventTTL } from './event-ttl.ts';
import { checkKubeletClientFlags, KUBELET_CLIENT_FLAGS, kubeletClientConfig, warnUnpairedKubeletClientFlags } from './kubelet-client/options.ts';
import { AUTHN_FLAGS, buildAuthenticator, loadCaBundle, validateAuthnFlags, type BuiltAuthentication } from './authn/options.ts';
import { registryLookups } from './authn/lookups.ts';
import { writeClientCAConfigMap } from './bootstrap/extension-apiserver-authentication.ts';
import type { Registry } from './registry/registry.ts';
import { advertisedIP } from './bootstrap/advertise-address.ts';
import { ENDPOINT_ANNOTATION, formatEndpoint, parseEndpoint, startEndpointReconciler } from './bootstrap/endpoint-reconciler.ts';
import { identityLeaseName, startIdentityLease } from './bootstrap/identity-lease.ts';
import { ensureKubernetesService } from './bootstrap/kubernetes-service.ts';
import { ensureSystemNamespaces } from './bootstrap/system-namespaces.ts';
import { bootstrapPolicyCheck, ensureBootstrapPolicy, RBAC_BOOTSTRAP_HOOK } from './bootstrap/rbac-policy.ts';
import { admissionChain, ALL_ORDERED_PLUGINS, validateAdmissionFlags } from './admission/index.ts';
import { createMetrics } from './metrics.ts';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connection-limits.ts';
import { createApiServer } from './server.ts';
import { isInsecureRequest, loadServingTls, serveInsecure, SERVING_FLAGS, ServingError, validateServingFlags, type InsecureServer } from './serving.ts';
import { chooseStorage } from './storage-backend.ts';
import { DEFAULT_MAX_WATCH_BUFFER_BYTES, DEFAULT_WATCH_BOOKMARK_INTERVAL_MS, DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS } from './watch/hub.ts';

const flags = parseCommandLine('kube-apiserver', {
  'bind-address': { type: 'string', default: '0.0.0.0', usage: 'The IP address on which to listen for the --secure-port port.' },
  'secure-port': { type: 'int', default: 6443, usage: 'The port on which to serve HTTPS with authentication and authorization. If 0, don\'t serve HTTPS at all.' },
  'datastore-endpoint': { type: 'string', default: '', usage: 'Storage endpoint: sqlite:///path/state.db (k3s style) or memory://. Not with --etcd-servers.' },
  'storage-backend': { type: 'string', default: '', usage: 'The storage backend for persistence. Options: \'etcd3\' (needs --etcd-servers). Unset: etcd3 when --etcd-servers is given, else --datastore-endpoint.' },
  'etcd-servers': { type: 'stringArray', default: [], usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' },
  'etcd-prefix': { type: 'string', default: '/registry', usage: 'The prefix to prepend to all resource paths in etcd.' },
  'etcd-cafile': { type: 'string', default: '', usage: 'SSL Certificate Authority file used to secure etcd communication.' },
  'etcd-certfile': { type: 'string', default: '', usage: 'SSL certification file used to secure etcd communication.' },
  'etcd-keyfile': { type: 'string', default: '', usage: 'SSL key file used to secure etcd communication.' },
  'advertise-address': { type: 'string', default: '', usage: 'The IP address on which to advertise the apiserver to members of the cluster.' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12', usage: 'A CIDR notation IP range from which to assign service cluster IPs.' },
  'service-node-port-range': { type: 'string', default: '30000-32767', usage: 'A port range to reserve for services with NodePort visibility.' },
  'max-requests-inflight': { type: 'int', default: 400, usage: 'The maximum number of non-mutating requests in flight at a given time. 0 means no limit.' },
  'max-mutating-requests-inflight': { type: 'int', default: 200, usage: 'The maximum number of mutating requests in flight at a given time. 0 means no limit.' },
  'request-timeout': { type: 'duration', default: DEFAULT_CONNECTION_LIMITS.requestTimeoutMs, usage: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.' },
  'read-header-timeout': { type: 'duration', default: DEFAULT_CONNECTION_LIMITS.readHeaderTimeoutMs, usage: 'kemu: how long a connection may take to send a request line and headers (after connecting or after its previous request) before it is closed. 0 means no limit.' },
  'read-body-timeout': { type: 'duration', default: DEFAULT_CONNECTION_LIMITS.readBodyTimeoutMs, usage: 'kemu: the longest pause allowed while a request body arrives; then the request gets a 504 and its connection is closed. 0 means no limit.' },
  'min-request-timeout': { type: 'int', default: 1800, usage: 'The minimum number of seconds a watch is held open (randomised up to twice this).' },
  'watch-bookmark-interval': { type: 'duration', default: DEFAULT_WATCH_BOOKMARK_INTERVAL_MS, usage: 'How often watches with allowWatchBookmarks=true get a BOOKMARK event (keep it well under clients\' 15s dead-watch deadline).' },
  'max-watch-buffer-bytes': { type: 'int', default: DEFAULT_MAX_WATCH_BUFFER_BYTES, usage: 'kemu: unsent bytes (beyond its initial events) after which a watcher is closed as unresponsive and its connection dropped.' },
  'watch-unresponsive-timeout': { type: 'duration', default: DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS, usage: 'kemu: a watcher that takes none of its pending events for this long is closed as unresponsive and its connection dropped. 0 means never.' },
  'etcd-compaction-interval': { type: 'duration', default: 5 * 60_000, usage: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled. (etcd: compacts to the revision seen one interval earlier.)' },
  'storage-compaction-retention': { type: 'duration', default: 5 * 60_000, usage: 'How much history (by age) compaction keeps for watches to resume from.' },
  'storage-compaction-min-revisions': { type: 'int', default: 1000, usage: 'Compaction always keeps at least this many latest revisions.' },
  'etcd-healthcheck-timeout': { type: 'duration', default: 2000, usage: 'The timeout to use when checking etcd health (the store\'s write probe; it runs at most every half of this).' },
  'default-watch-cache-size': { type: 'int', default: 10_000, usage: 'Events of history kept per resource for resuming watches.' },
  'identity-lease-renew-interval': { type: 'duration', default: 10_000, usage: 'How often this replica renews its identity Lease.' },
  'identity-lease-duration-seconds': { type: 'int', default: 3600, usage: 'The duration of this replica\'s identity Lease in seconds.' },
  'endpoint-reconciler-type': { type: 'string', default: 'lease', usage: 'Use an endpoint reconciler (lease, none) for the default/kubernetes Endpoints and EndpointSlice.' },
  'hostname-override': { type: 'string', default: '', usage: 'The host name this replica goes by instead of the machine\'s (its identity Lease is kube-system/apiserver-<hash of it>, labelled kubernetes.io/hostname=<it>).' },
  'apiserver-id': { type: 'string', default: '', usage: 'Alias of --hostname-override.' },
  'default-not-ready-toleration-seconds': { type: 'int', default: 300, usage: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  'default-unreachable-toleration-seconds': { type: 'int', default: 300, usage: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  'enable-admission-plugins': { type: 'stringArray', default: [], usage: `admission plugins that should be enabled in addition to default enabled ones. Comma-delimited list of admission plugins: ${[...ALL_ORDERED_PLUGINS].sort().join(', ')}. The order of plugins in this flag does not matter.` },
  'disable-admission-plugins': { type: 'stringArray', default: [], usage: `admission plugins that should be disabled although they are in the default enabled plugins list. Comma-delimited list of admission plugins: ${[...ALL_ORDERED_PLUGINS].sort().join(', ')}. The order of plugins in this flag does not matter.` },
  'allow-privileged': { type: 'bool', default: false, usage: 'If true, allow privileged containers. [default=false]' },
  v: { type: 'int', default: 0, usage: 'Number for the log level verbosity.' },
  ...AUDIT_FLAGS,
  ...AUTHZ_FLAGS,
  ...COMPAT_FLAGS,
  ...KUBELET_CLIENT_FLAGS,
  ...EVENT_TTL_FLAGS,
  ...AUTHN_FLAGS,
  ...SERVING_FLAGS,
  ...LOGGING_FORMAT_FLAG,
});

const logger = createLogger('kube-apiserver', flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });

async function main(): Promise<void> {
  const serviceRanges = parseServiceClusterIPRanges(flags['service-cluster-ip-range']);
  if ('errors' in serviceRanges) {
    // Kubernetes' aggregate error: one message as is, several in brackets; exit 1 as cobra's RunE does.
    const errs = serviceRanges.errors;
    process.stderr.write(`Error: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}\n`);
    process.exit(1);
  }
  const clusterIP = serviceRanges.apiServerServiceIP;
  const compat = checkCompatFlags(flags);
  if (compat) {
    process.stderr.write(`Error: ${compat.message}\n`);
    process.exit(compat.code);
  }
  logNotInEffect(flags, logger);
  const kubeletFlags = checkKubeletClientFlags(flags);
  if (kubeletFlags) {
    process.stderr.write(`Error: ${kubeletFlags.message}\n`);
    process.exit(kubeletFlags.code);
  }
  warnUnpairedKubeletClientFlags(flags, logger);
  const authz = parseAuthorizationModes(flags['authorization-mode']);
  if (authz.errors.length > 0) {
    process.stderr.write(`Error: ${aggregateMessage(authz.errors)}\n`);
    process.exit(1);
  }
  const storage = chooseStorage(flags);
  if ('errors' in storage) {
    for (const e of storage.errors) process.stderr.write(`Error: ${e}\n`);
    process.exit(1);
  }
  const endpoint = storage.kind === 'datastore' ? storage.endpoint : '';
  if (flags['etcd-healthcheck-timeout'] <= 0) {
    process.stderr.write('Error: --etcd-healthcheck-timeout must be greater than 0\n');
    process.exit(2);
  }
  for (const f of ['etcd-compaction-interval', 'storage-compaction-retention', 'storage-compaction-min-revisions'] as const) {
    if (flags[f] < 0) {
      process.stderr.write(`Error: --${f} must not be negative\n`);
      process.exit(2);
    }
  }
  const connectionLimits: ConnectionLimits = {
    ...DEFAULT_CONNECTION_LIMITS,
    requestTimeoutMs: flags['request-timeout'],
    readHeaderTimeoutMs: flags['read-header-timeout'],
    readBodyTimeoutMs: flags['read-body-timeout'],
  };
  for (const f of ['request-timeout', 'read-header-timeout', 'read-body-timeout', 'watch-unresponsive-timeout'] as const) {
    if (flags[f] < 0) {
      process.stderr.write(`Error: --${f} can not be negative value\n`);
      process.exit(2);
    }
  }
  if (flags['max-watch-buffer-bytes'] <= 0) {
    process.stderr.write('Error: --max-watch-buffer-bytes must be positive\n');
    process.exit(2);
  }
  for (const err of validateAuditFlags(flags)) {
    process.stderr.write(`Error: ${err}\n`);
    process.exit(2);
  }
  let audit;
  try {
    audit = auditFromFlags(flags);
  } catch (e) {
    // Kubernetes fails start-up ("command failed") with exit code 1 on a bad policy file.
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  const enable = flags['enable-admission-plugins'];
  const disable = flags['disable-admission-plugins'];
  const admissionErrors = validateAdmissionFlags(enable, disable);
  if (admissionErrors.length > 0) {
    // Kubernetes' aggregate error: one message as is, several in brackets; exit 1 as cobra's RunE does.
    process.stderr.write(`Error: ${admissionErrors.length === 1 ? admissionErrors[0] : `[${admissionErrors.join(', ')}]`}\n`);
    process.exit(1);
  }
  const admission = admissionChain(enable, disable);
  logger.info({ plugins: admission.plugins.map((p) => p.name) }, 'Loaded admission plugins');
  if (admission.notInEffect.length > 0) {
    logger.info({ plugins: admission.notInEffect }, 'Admission plugins enabled but not implemented by kemu: not in effect');
  }
  const backend = await openBackend(endpoint, {
    logger,
    compactIntervalMs: flags['etcd-compaction-interval'],
    compactRetentionMs: flags['storage-compaction-retention'],
    compactMinRevisions: flags['storage-compaction-min-revisions'],
    healthCheckTimeoutMs: flags['etcd-healthcheck-timeout'],
    ...(storage.kind === 'etcd3' ? { etcd: storage.etcd } : {}),
  });
  const metrics = createMetrics(true);
  for (const err of validateServingFlags(flags)) {
    process.stderr.write(`Error: ${err}\n`);
    process.exit(2);
  }
  // The port advertised in the kubernetes Service and endpoints: the secure one, or the insecure one alone.
  const port = flags['secure-port'] || flags['insecure-port'];
  const advertiseHost = advertisedIP(flags['advertise-address'], flags['bind-address']);
  let tls;
  try {
    tls = await loadServingTls(flags, { publicAddress: advertiseHost, serviceIP: clusterIP });
  } catch (e) {
    // Kubernetes fails start-up with exit code 1 on a serving or client-CA file it cannot use.
    process.stderr.write(`Error: ${e instanceof ServingError ? e.message : String(e)}\n`);
    process.exit(1);
  }
  if (tls?.generated) logger.info({}, `Generated self-signed cert (${tls.certFile}, ${tls.keyFile})`);
  const https = tls?.https;
  for (const err of validateAuthnFlags(flags)) {
    process.stderr.write(`Error: ${err}\n`);
    process.exit(2);
  }
  // The lookups read through the registry, which exists once the server does; nothing asks before it serves.
  let registry: Registry | undefined;
  const lookups = registryLookups({ get: (r, ns, name) => (registry as Registry).get(r, ns, name) });
  let authn: BuiltAuthentication;
  try {
    const clientCA = flags['client-ca-file'] ? loadCaBundle(flags['client-ca-file']) : undefined;
    authn = buildAuthenticator(flags, lookups, clientCA, { log: { warn: (m) => logger.warn(m) } });
  } catch (e) {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  const reconcilerType = flags['endpoint-reconciler-type'];
  if (reconcilerType !== 'lease' && reconcilerType !== 'none') {
    process.stderr.write(`Error: --endpoint-reconciler-type: unsupported value "${reconcilerType}" (supported: lease, none)\n`);
    process.exit(2);
  }
  const self = { ip: advertiseHost, port };
  if (reconcilerType === 'lease' && !parseEndpoint(formatEndpoint(self))) {
    process.stderr.write(`Error: --advertise-address: "${advertiseHost}" is not an IPv4 address\n`);
    process.exit(2);
  }
  const rbacHook = bootstrapPolicyCheck();
  const srv = await createApiServer({
    backend,
    checks: { [`poststarthook/${RBAC_BOOTSTRAP_HOOK}`]: rbacHook.check },
    logger,
    metrics,
    advertise: `${advertiseHost}:${port}`,
    maxRequestsInflight: flags['max-requests-inflight'],
    maxMutatingRequestsInflight: flags['max-mutating-requests-inflight'],
    bookmarkIntervalMs: flags['watch-bookmark-interval'],
    minRequestTimeoutMs: flags['min-request-timeout'] * 1000,
    historySize: flags['default-watch-cache-size'],
    serviceClusterIPRange: flags['service-cluster-ip-range'],
    serviceNodePortRange: flags['service-node-port-range'],
    connectionLimits,
    maxWatchBufferBytes: flags['max-watch-buffer-bytes'],
    watchUnresponsiveTimeoutMs: flags['watch-unresponsive-timeout'],
    defaultNotReadyTolerationSeconds: flags['default-not-ready-toleration-seconds'],
    defaultUnreachableTolerationSeconds: flags['default-unreachable-toleration-seconds'],
    admissionPlugins: admission.plugins,
    authorizationModes: authz.modes,
    authentication: { authenticator: authn.authenticator, trusted: isInsecureRequest },
    allowPrivileged: flags['allow-privileged'],
    kubelet: kubeletClientConfig(flags),
    // The aggregator presents the front-proxy client certificate when both files are given (checked above).
    aggregator:
      flags['proxy-client-cert-file'] && flags['proxy-client-key-file']
        ? { proxyClient: { cert: readFileSync(flags['proxy-client-cert-file'], 'utf8'), key: readFileSync(flags['proxy-client-key-file'], 'utf8') }, routeToEndpoints: flags['enable-aggregator-routing'] }
        : { routeToEndpoints: flags['enable-aggregator-routing'] },
    ...(https ? { https } : {}),
    ...(audit ? { audit } : {}),
  });
  registry = srv.ctx.registry;
  srv.ctx.tokenAuthenticator = authn.tokenAuthenticator;
  if (authn.tokenIssuer) srv.ctx.tokenIssuer = authn.tokenIssuer;
  await srv.start();
  await ensureSystemNamespaces(srv.ctx.registry);
  // kube-apiserver's ClientCARegistrationHook: components find the CAs to trust for delegated authentication here.
  const rh = flags['requestheader-client-ca-file'];
  await writeClientCAConfigMap(srv.ctx.registry, {
    ...(flags['client-ca-file'] ? { clientCA: readFileSync(flags['client-ca-file'], 'utf8') } : {}),
    ...(rh
      ? {
          requestHeader: {
            clientCA: readFileSync(rh, 'utf8'),
            usernameHeaders: flags['requestheader-username-headers'],
            groupHeaders: flags['requestheader-group-headers'],
            extraHeaderPrefixes: flags['requestheader-extra-headers-prefix'],
            allowedNames: flags['requestheader-allowed-names'],
          },
        }
      : {}),
  });
  await ensureBootstrapPolicy(srv.ctx.registry, logger);
  rbacHook.done();
  await ensureKubernetesService(srv.ctx.registry, clusterIP, port);
  srv.startAggregator();
  const host = flags['hostname-override'] || flags['apiserver-id'] || hostname();
  const leaseName = identityLeaseName(host);
  const lease = startIdentityLease({
    registry: srv.ctx.registry,
    clock: srv.ctx.clock,
    logger,
    name: leaseName,
    hostname: host,
    holder: `${leaseName}_${randomUUID()}`,
    renewIntervalMs: flags['identity-lease-renew-interval'],
    leaseDurationSeconds: flags['identity-lease-duration-seconds'],
    ...(reconcilerType === 'lease' ? { annotations: { [ENDPOINT_ANNOTATION]: formatEndpoint(self) } } : {}),
  });
  await lease.renew();
  const endpoints =
    reconcilerType === 'lease'
      ? startEndpointReconciler({ registry: srv.ctx.registry, clock: srv.ctx.clock, logger, self, intervalMs: flags['identity-lease-renew-interval'] })
      : undefined;
  // Kubernetes takes any --event-ttl; kemu reads 0 or less as "keep Events forever".
  const eventTTL = flags['event-ttl'] > 0 ? startEventTTL({ registry: srv.ctx.registry, clock: srv.ctx.clock, logger, ttlMs: flags['event-ttl'] }) : undefined;
  await endpoints?.reconcile().catch((e: unknown) => logger.warn({ err: String(e) }, 'reconciling default/kubernetes endpoints failed'));
  const where = { identity: leaseName, hostname: host, datastore: storage.kind === 'etcd3' ? `etcd3 ${storage.etcd.servers} prefix ${storage.etcd.prefix ?? ''}` : endpoint || 'sqlite://./db/state.db' };
  let insecure: InsecureServer | undefined;
  if (flags['insecure-port'] > 0) {
    insecure = await serveInsecure(srv.app, srv.upgrade, { host: flags['insecure-bind-address'], port: flags['insecure-port'], limits: connectionLimits });
    logger.info(where, `Serving insecurely on ${insecure.address}`);
  }
  if (https) {
    const address = await srv.app.listen({ host: flags['bind-address'], port: flags['secure-port'] });
    logger.info(where, `Serving securely on ${new URL(address).host}`);
  } else if (!insecure) {
    logger.info(where, 'Serving nothing: --secure-port and --insecure-port are both 0');
  }
  onShutdown(async () => {
    lease.stop();
    endpoints?.stop();
    eventTTL?.stop();
    await insecure?.close();
    await srv.close();
    audit?.sink.close();
    await backend.close();
  });
}

main().catch((e: unknown) => {
  logger.fatal({ err: e instanceof Error ? e.stack : String(e) }, 'kube-apiserver failed to start');
  process.exit(1);
});

// The kube-apiserver HTTP surface on fastify: body decoding, one error handler that renders every
// failure as a metav1 Status, Cache-Control on every reply, inflight limits, metrics and request logs,
// discovery, /version, OpenAPI, health, REST and watch (HTTP streaming and WebSocket).
import { errors, qualifiedResource, R, StatusError, toStatus, type PriorityClass, type ServiceAccount, type Status, type StorageClass } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Backend } from '@kemu/store';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { auditImpersonation, auditAnnotate, installAudit, type AuditOptions } from './audit/stage.ts';
import type { Authorizer } from './authz/types.ts';
import { buildAuthorizer, type AuthorizationMode } from './authz/modes.ts';
import { nodeAuthorizer, nodeGraphFromCacher, type SyncedNodeGraph } from './authz/node/index.ts';
import { RbacAuthorizer } from './authz/rbac.ts';
import { rbacLookupsFromCacher } from './authz/rbac-cacher.ts';
import { rbacWriteGuard } from './authz/rbac-escalation.ts';
import { authenticate, type AuthenticationOptions } from './filters/authentication.ts';
import { authorize, PlainTextError } from './filters/authorization.ts';
import { impersonate } from './filters/impersonation.ts';
import { requestUser } from './filters/request-state.ts';
import { decodeBody } from './body.ts';
import { realClock, type Clock } from './clock.ts';
import type { ApiContext } from './context.ts';
import { aggregatedDiscovery, AGGREGATED_CONTENT_TYPE, apiGroupDoc, apiGroupList, apiResourceList, apiVersions, wantsAggregated } from './discovery.ts';
import { loadExtensions, type Extensions } from './extensions.ts';
import { runHealth, type Check } from './health.ts';
import { storeUnavailable } from './store-errors.ts';
import { instrumentBackend } from './instrumented-backend.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { DEFAULT_CONNECTION_LIMITS, fastifyServerOptions, installConnectionLimits, nodeServerOptions, type ConnectionLimits } from './connection-limits.ts';
import { installInflightLimits } from './inflight-limits.ts';
import { KubeletClient } from './kubelet-client/client.ts';
import type { KubeletClientConfig } from './kubelet-client/options.ts';
import { warningHeader, warningHeaderOf } from './registry/warnings.ts';
import { deprecationWarnings } from './crd/deprecation.ts';
import type { AdmissionPlugin } from './admission/index.ts';
import { openapiDocument, openapiIndex, openapiV2Document } from './openapi.ts';
import { ServiceAllocator } from './allocators/index.ts';
import { listFromStore } from './registry/list.ts';
import { Registry } from './registry/registry.ts';
import { decodeObject, objectKey } from './storage.ts';
import { handleRest, requestVerb } from './routes/rest.ts';
import { boolParam, type ApiRequest, type ResourceTarget } from './routes/request.ts';
import { requestUrl } from './routes/request-url.ts';
import type { HttpsServing, UpgradeHandler } from './serving.ts';
import { streamLocation, tunnelUpgrade } from './routes/pod-exec.ts';
import { parseTarget } from './routes/target.ts';
import { servePortForwardUpgrade } from './routes/port-forward.ts';
import { parseProxyPath, serveProxyOrStatus } from './routes/proxy.ts';
import { serveProxyUpgrade } from './routes/proxy-upgrade.ts';
import { VERSION_INFO } from './version.ts';
import { Cacher } from './watch/cacher.ts';
import { startCustomResourceCleanup } from './crd/cleanup.ts';
import { Aggregator, type AggregatorOptions } from './aggregator/controller.ts';
import { plainError } from './aggregator/proxy.ts';
import { DEFAULT_MAX_WATCH_BUFFER_BYTES, DEFAULT_WATCH_BOOKMARK_INTERVAL_MS, DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS, WatchHub } from './watch/hub.ts';
import { prepareWatch, serveHttpWatch, trackWatcher, wsSink } from './watch/route.ts';

export const BODY_LIMIT = 3 * 1024 * 1024;

export interface ApiServerOptions {
  backend: Backend;
  logger: Logger;
  clock?: Clock;
  ext?: Extensions;
  metrics?: Metrics;
  /** host:port for legacy discovery. */
  advertise?: string;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** BOOKMARK interval for watches that allow them (default 5 s, under clients' 15 s dead-stream deadline). */
  bookmarkIntervalMs?: number;
  minRequestTimeoutMs?: number;
  historySize?: number;
  /** Unsent bytes after which a slow watcher is disconnected (default 16 MiB). */
  maxWatchBufferBytes?: number;
  /** A watcher that takes none of its pending output for this long is disconnected (default 30 s; 0: never). */
  watchUnresponsiveTimeoutMs?: number;
  /** --service-cluster-ip-range and --service-node-port-range (allocation of ClusterIPs and NodePorts). */
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** Serve HTTPS with this certificate and key, and --client-ca-file (plain HTTP otherwise; see serving.ts). */
  https?: HttpsServing;
  /** Deadlines for receiving and answering requests (--request-timeout and kemu's read timeouts). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** DefaultTolerationSeconds admission: --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds. */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
  /** Extra /readyz and /healthz checks. */
  checks?: Record<string, Check>;
  /** --audit-policy-file and the audit log it writes to (none: only the Audit-Id header). */
  audit?: AuditOptions;
  /** The admission chain (--enable/--disable-admission-plugins); default: the default-on plugins. */
  admissionPlugins?: readonly AdmissionPlugin[];
  /** --allow-privileged (default false, as kube-apiserver). */
  allowPrivileged?: boolean;
  /** The authenticator union (none: every request acts as system:unsecured, as on --insecure-port). */
  authentication?: AuthenticationOptions;
  /** An authorizer chain made by the caller (tests); wins over authorizationModes. */
  authorizer?: Authorizer;
  /** --authorization-mode, built here over the watch cache (none: everything is allowed). */
  authorizationModes?: readonly AuthorizationMode[];
  /** How kubelets are reached (--kubelet-* flags); default: no client certificate, no verification, Kubernetes' address order. */
  kubelet?: KubeletClientConfig;
  /**
   * API aggregation's controllers (local APIServices, Available conditions, merged discovery) with the
   * front-proxy client certificate (--proxy-client-*); none: not run (requests for a remote APIService get 503).
   */
  aggregator?: AggregatorOptions;
}

export interface ApiServer {
  app: FastifyInstance;
  ctx: ApiContext;
  /** WebSocket watches: app.server's 'upgrade' listener, for another server (--insecure-port) to attach too. */
  upgrade: UpgradeHandler;
  /** Fills the watch cache; call before serving. */
  start(): Promise<void>;
  /**
   * Starts the aggregator's controllers when `aggregator` options were given (kube-apiserver calls it after its
   * bootstrap objects, as Kubernetes' post-start hooks, so they do not compete with them for the store).
   */
  startAggregator(): void;
  close(): Promise<void>;
}

function sendStatus(reply: FastifyReply, status: Status, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status.code).headers({ 'content-type': 'application/json', ...headers }).send(Buffer.from(JSON.stringify(status)));
}

function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const unavailable = storeUnavailable(err);
  if (unavailable) return unavailable;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  const msg = typeof e.message === 'string' ? e.message : String(err);
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return new StatusError('RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415) return new StatusError('UnsupportedMediaType', msg);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return errors.badRequest(msg);
  return errors.internal(msg);
}

export async function createApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const clock = opts.clock ?? realClock;
  const metrics = opts.metrics ?? createMetrics();
  const logger = opts.logger;
  const backend = instrumentBackend(opts.backend, metrics);
  const ext =
    opts.ext ??
    loadExtensions({
      ...(opts.defaultNotReadyTolerationSeconds !== undefined ? { defaultNotReadyTolerationSeconds: opts.defaultNotReadyTolerationSeconds } : {}),
      ...(opts.defaultUnreachableTolerationSeconds !== undefined ? { defaultUnreachableTolerationSeconds: opts.defaultUnreachableTolerationSeconds } : {}),
      // Every pod create asks; the watch cache answers without a store read once it is filled.
      getPriorityClass: async (name) => {
        const key = objectKey(R.priorityclasses, undefined, name);
        if (cacher.isReady()) {
          const hit = cacher.cache(R.priorityclasses).objects.get(key);
          return hit ? (structuredClone(hit.object) as PriorityClass) : undefined;
        }
        const kv = await backend.get(key);
        return kv ? (decodeObject(kv) as PriorityClass) : undefined;
      },
      listPriorityClasses: async () => {
        if (cacher.isReady()) return cacher.cache(R.priorityclasses).snapshot(undefined, undefined).map((o) => structuredClone(o.object) as PriorityClass);
        return (await listFromStore(backend, R.priorityclasses, {})).items as PriorityClass[];
      },
      listStorageClasses: async () => {
        if (cacher.isReady()) return cacher.cache(R.storageclasses).snapshot(undefined, undefined).map((o) => structuredClone(o.object) as StorageClass);
        return (await listFromStore(backend, R.storageclasses, {})).items as StorageClass[];
      },
      // The watch cache first; then the store (a namespace created a moment ago through another replica
      // may not be cached yet).
      getNamespace: async (name) => {
        const key = objectKey(R.namespaces, undefined, name);
        if (cacher.isReady()) {
          const hit = cacher.cache(R.namespaces).objects.get(key);
          if (hit) return hit.object;
        }
        const kv = await backend.get(key);
        return kv ? decodeObject(kv) : undefined;
      },
      listPods: async (namespace) => {
        if (cacher.isReady()) return cacher.cache(R.pods).snapshot(namespace, undefined).map((o) => o.object);
        return (await listFromStore(backend, R.pods, { namespace })).items;
      },
      getServiceAccount: async (namespace, name) => {
        const key = objectKey(R.serviceaccounts, namespace, name);
        if (cacher.isReady()) {
          const hit = cacher.cache(R.serviceaccounts).objects.get(key);
          if (hit) return structuredClone(hit.object) as ServiceAccount;
        }
        const kv = await backend.get(key);
        return kv ? (decodeObject(kv) as ServiceAccount) : undefined;
      },
      // The certificate plugins ask the same chain as requests do (none wired: everything allowed).
      authorize: async (a) => (authorizer ? authorizer.authorize(a) : { decision: 'allow', reason: '' }),
      listObjects: async (r, namespace, fresh) => {
        if (!fresh && cacher.isReady()) return cacher.cache(r).snapshot(namespace, undefined).map((o) => structuredClone(o.object));
        return (await listFromStore(backend, r, { namespace })).items;
      },
      updateQuotaStatus: async (q) => {
        await registry.update(R.resourcequotas, q.metadata.namespace, q.metadata.name ?? '', q, { subresource: 'status' });
      },
      getPod: async (namespace, name) => {
        const key = objectKey(R.pods, namespace, name);
        if (cacher.isReady()) {
          const hit = cacher.cache(R.pods).objects.get(key);
          if (hit) return hit.object;
        }
        const kv = await backend.get(key);
        return kv ? decodeObject(kv) : undefined;
      },
    }, { ...(opts.admissionPlugins ? { admissionPlugins: opts.admissionPlugins } : {}), allowPrivileged: opts.allowPrivileged ?? false });
  const allocator = new ServiceAllocator(backend, {
    serviceClusterIPRange: opts.serviceClusterIPRange ?? '10.96.0.0/12',
    serviceNodePortRange: opts.serviceNodePortRange ?? '30000-32767',
  });
  const cacher = new Cacher({ backend, logger, ...(opts.historySize ? { historySize: opts.historySize } : {}), onReset: () => hub.closeAll() });
  const hub = new WatchHub(cacher, {
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? DEFAULT_WATCH_BOOKMARK_INTERVAL_MS,
    maxBufferedBytes: opts.maxWatchBufferBytes ?? DEFAULT_MAX_WATCH_BUFFER_BYTES,
    unresponsiveTimeoutMs: opts.watchUnresponsiveTimeoutMs ?? DEFAULT_WATCH_UNRESPONSIVE_TIMEOUT_MS,
    onUnresponsive: ({ resource, peer, bufferedBytes }) => {
      const gr = qualifiedResource(resource);
      logger.info({ resource: gr, peer, unsentBytes: bufferedBytes }, `Forcing ${gr} watcher close due to unresponsiveness: ${peer}`);
      metrics.terminatedWatchers.inc({ group: resource.group, resource: resource.plural });
    },
  });
  // Built whatever the modes: escalation prevention resolves rules with it, as Kubernetes does.
  const rbac = new RbacAuthorizer(rbacLookupsFromCacher(cacher));
  const registry = new Registry({
    backend,
    clock,
    ext,
    allocator,
    // Asks the whole chain, so AlwaysAllow grants escalate and bind as in Kubernetes.
    writeGuard: rbacWriteGuard({ resolver: rbac, authorize: (a) => authorizer?.authorize(a) ?? { decision: 'allow', reason: '' } }),
  });
  let nodeGraph: SyncedNodeGraph | undefined;
  const authorizer =
    opts.authorizer ??
    (opts.authorizationModes
      ? buildAuthorizer(opts.authorizationModes, {
          // Kept up in the background so a kubelet's first request never waits for the graph to be built.
          node: () => nodeAuthorizer((nodeGraph = nodeGraphFromCacher(cacher, { keepUpMs: 1000 }))),
          rbac: () => rbac,
        })
      : undefined);
  const ctx: ApiContext = {
    backend,
    clock,
    logger,
    ext,
    registry,
    cacher,
    hub,
    metrics,
    advertise: opts.advertise ?? '127.0.0.1:6443',
    minRequestTimeoutMs: opts.minRequestTimeoutMs ?? 1_800_000,
    componentLeases: { scheduler: 'kube-scheduler', 'controller-manager': 'kube-controller-manager' },
    kubeletClient: new KubeletClient(opts.kubelet),
    ...(authorizer ? { authorizer } : {}),
  };
  const aggregator = new Aggregator(cacher, registry, logger, clock, opts.aggregator);
  const checks: Record<string, Check> = {
    ping: () => true,
    log: () => true,
    etcd: () => opts.backend.healthy(),
    'informer-sync': () => cacher.isReady(),
    ...(opts.checks ?? {}),
    ...(opts.aggregator ? aggregator.healthChecks() : {}),
  };

  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.connectionLimits };
  const app = Fastify({ ...(opts.https ? { https: { ...opts.https, ...nodeServerOptions(limits) } } : { http: nodeServerOptions(limits) }), ...fastifyServerOptions(limits), bodyLimit: BODY_LIMIT, logger: false, forceCloseConnections: true, return503OnClosing: false, routerOptions: { caseSensitive: true, ignoreTrailingSlash: true },
    // Malformed URLs and the like never reach a route: answer them with a Status too.
    frameworkErrors: (err, _req, reply) => {
      void sendStatus(reply.header('cache-control', 'no-cache, private'), toStatus(errors.badRequest(err.message)));
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

  installConnectionLimits(app, limits);
  // Kubernetes' order: authentication, audit, impersonation, the inflight limits, authorization. Audit
  // comes before the inflight limits, so requests they refuse are audited too; authorization decides before
  // the body is read.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('cache-control', 'no-cache, private');
    await authenticate(req.raw, opts.authentication, logger);
  });
  installAudit(app, opts.audit, (req) => requestUser(req.raw) ?? { username: '', groups: [] });
  app.addHook('onRequest', async (req) => {
    await impersonate(req.raw, authorizer);
    auditImpersonation(req, requestUser(req.raw));
  });
  app.addHook('onRequest', async (req) => {
    await authorize(req.raw, authorizer, (k, v) => auditAnnotate(req, k, v));
  });
  installInflightLimits(app, { maxReadOnly: opts.maxRequestsInflight ?? 400, maxMutating: opts.maxMutatingRequestsInflight ?? 200 }, metrics);
  const started = new WeakMap<FastifyRequest, { verb: string; resource: string }>();
  const arrived = new WeakMap<FastifyRequest, number>();

  app.addHook('onRequest', async (req, reply) => {
    arrived.set(req, performance.now());
    reply.header('cache-control', 'no-cache, private');
  });

  app.addHook('onResponse', async (req, reply) => {
    const s = started.get(req);
    const verb = s?.verb ?? req.method;
    const resource = s?.resource ?? '';
    const seconds = (performance.now() - (arrived.get(req) ?? performance.now())) / 1000;
    metrics.requests.inc({ verb, resource, code: String(reply.statusCode) });
    if (s) metrics.duration.observe({ verb, resource }, seconds);
    if (logger.isLevelEnabled('debug')) {
      // The keys of Kubernetes' httplog line ("HTTP" verb=… URI=… latency=… userAgent=… srcIP=… resp=…).
      const latency = seconds < 0.001 ? `${(seconds * 1e6).toFixed(3)}µs` : `${(seconds * 1000).toFixed(3)}ms`;
      logger.debug({ verb, URI: req.url, latency, userAgent: req.headers['user-agent'], srcIP: `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`, resp: reply.statusCode }, 'HTTP');
    }
  });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof PlainTextError) return reply.code(err.code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(err.text);
    const se = toStatusError(err);
    if (se.code >= 500) logger.error({ err: err instanceof Error ? err.stack : String(err) }, 'request failed');
    const headers: Record<string, string> = {};
    if (se.details?.retryAfterSeconds) headers['retry-after'] = String(se.details.retryAfterSeconds);
    const warning = warningHeaderOf(err);
    if (warning) headers.warning = warning;
    return sendStatus(reply, toStatus(se), headers);
  });
  app.setNotFoundHandler((_req, reply) => sendStatus(reply, toStatus(new StatusError('NotFound', 'the server could not find the requested resource'))));

  const json = (reply: FastifyReply, code: number, body: unknown, contentType = 'application/json') =>
    reply.code(code).header('content-type', contentType).send(Buffer.from(JSON.stringify(body)));

  app.get('/version', async (_req, reply) => json(reply, 200, VERSION_INFO));
  for (const ep of ['healthz', 'livez', 'readyz']) {
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const u = new URL(req.url, 'http://x');
      // A check's name may have slashes: /healthz/poststarthook/rbac/bootstrap-roles.
      const rest = u.pathname.split('/').slice(2);
      const sub = rest.length > 0 ? rest.join('/') : undefined;
      const res = await runHealth(ep, checks, sub, u.searchParams);
      return reply.code(res.code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(res.text);
    };
    app.get(`/${ep}`, handler);
    app.get(`/${ep}/*`, handler);
  }
  app.get('/metrics', async (_req, reply) => reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics()));
  // JSON for clients that ask for it; kubectl's fallback asks for protobuf only and takes a 404 (CLIENT-WIRE §3).
  app.get('/openapi/v2', async (req, reply) => {
    const accept = req.headers.accept ?? '';
    if (accept.includes('protobuf') && !accept.includes('json')) return sendStatus(reply, toStatus(new StatusError('NotFound', 'the server could not find the requested resource')));
    return json(reply, 200, aggregator.openapi.mergeV2(openapiV2Document()));
  });
  // Group-versions of aggregated servers are listed beside the local ones and their documents proxied (aggregator/openapi.ts).
  app.get('/openapi/v3', async (_req, reply) => json(reply, 200, aggregator.openapi.mergeIndex(openapiIndex())));
  app.get('/openapi/v3/*', async (req, reply) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    const parts = pathname.split('/').slice(3);
    const [group, version] = parts[0] === 'api' ? ['', parts[1]] : parts[0] === 'apis' ? [parts[1], parts[2]] : [undefined, undefined];
    const doc = group !== undefined && version ? openapiDocument(group, version) : undefined;
    if (doc) return json(reply, 200, doc);
    const source = aggregator.openapi.sourceOf(parts.join('/'));
    if (source && 'doc' in source) return json(reply, 200, source.doc);
    const user = requestUser(req.raw);
    if (source && user) {
      reply.hijack();
      await aggregator.proxy(source.apiService, { method: req.method, url: req.url, headers: req.headers, body: undefined, user }, reply.raw);
      return reply;
    }
    return sendStatus(reply, toStatus(new StatusError('NotFound', 'the server could not find the requested resource')));
  });

  const rest = async (req: FastifyRequest, reply: FastifyReply) => {
    const u = requestUrl(req.url);
    // /apis/<group>/<version>/... of a non-local APIService: proxied to its aggregated API server (aggregator/).
    const [head, group, version] = u.pathname.split('/').filter((p) => p !== '');
    const remote = head === 'apis' && group && version ? aggregator.remoteFor(group, version) : undefined;
    if (remote) {
      reply.hijack();
      const user = requestUser(req.raw);
      if (!user) plainError(reply.raw, 500, 'missing user');
      else await aggregator.proxy(remote, { method: req.method, url: req.url, headers: req.headers, body: req.body as Buffer | undefined, user }, reply.raw);
      return reply;
    }
    // pods|services|nodes/<name>/proxy/<path>: every method, any body, streamed (routes/proxy.ts).
    const proxied = parseProxyPath(u.pathname);
    if (proxied) {
      reply.hijack();
      await serveProxyOrStatus(ctx, proxied, { method: req.method, headers: req.headers, query: u.searchParams.toString(), body: req.body as Buffer | undefined, pathname: u.pathname, ...(req.raw.socket.remoteAddress ? { remoteAddress: req.raw.socket.remoteAddress } : {}) }, reply.raw);
      return reply;
    }
    const target = parseTarget(u.pathname);
    const accept = req.headers.accept;
    // Discovery documents are read-only: every other method is a 405, as for the root.
    if (target.kind !== 'resource' && req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed('the server does not allow this method on the requested resource');
    switch (target.kind) {
      case 'root':
        if (wantsAggregated(accept)) return json(reply, 200, aggregatedDiscovery(target.prefix, aggregator.priorityOf), AGGREGATED_CONTENT_TYPE);
        return json(reply, 200, target.prefix === 'api' ? apiVersions(ctx.advertise) : apiGroupList(aggregator.priorityOf));
      case 'group': {
        const doc = apiGroupDoc(target.group, aggregator.priorityOf);
        return json(reply, 200, doc);
      }
      case 'groupVersion':
        return json(reply, 200, apiResourceList(target.group, target.version));
      case 'resource':
        break;
    }
    // A deprecated version of a custom resource warns on every request, watches included.
    const deprecated = warningHeader(deprecationWarnings(target.resource));
    if (deprecated) {
      reply.header('warning', deprecated);
      reply.raw.setHeader('warning', deprecated);
    }
    const contentType = req.headers['content-type'];
    const apiReq: ApiRequest = {
      method: req.method,
      target,
      query: u.searchParams,
      headers: req.headers,
      contentType,
      body: undefined,
      annotate: (k, v) => auditAnnotate(req, k, v),
    };
    const user = requestUser(req.raw);
    if (user) apiReq.user = user;
    const verb = requestVerb(apiReq);
    started.set(req, { verb, resource: target.resource.plural });
    if (verb === 'WATCH' || (req.method === 'GET' && target.watchPath)) {
      const prepared = prepareWatch(ctx, target, u.searchParams, accept);
      await serveHttpWatch(ctx, prepared, reply.raw, () => reply.hijack());
      metrics.requests.inc({ verb: 'WATCH', resource: target.resource.plural, code: '200' });
      return reply;
    }
    apiReq.body = decodeBody(contentType, req.body as Buffer | undefined);
    const out = await handleRest(ctx, apiReq);
    if (out.stream) {
      // Long-running (like a watch): fastify lets go of the response and the handler ends it.
      reply.hijack();
      reply.raw.writeHead(out.code, { 'cache-control': 'no-cache, private', ...(out.headers ?? {}), 'content-type': out.stream.contentType });
      reply.raw.flushHeaders();
      metrics.requests.inc({ verb, resource: target.resource.plural, code: String(out.code) });
      out.stream.start(reply.raw);
      return reply;
    }
    if (out.headers) reply.headers(deprecated && out.headers.warning ? { ...out.headers, warning: `${deprecated}, ${out.headers.warning}` } : out.headers);
    if (out.raw) return reply.code(out.code).header('content-type', out.raw.contentType).send(out.raw.text);
    if (out.json !== undefined) return reply.code(out.code).header('content-type', 'application/json').send(Buffer.from(out.json));
    return json(reply, out.code, out.body);
  };
  for (const prefix of ['/api', '/apis']) {
    app.all(prefix, rest);
    app.all(`${prefix}/*`, rest);
  }

  // WebSocket watches on the same URLs.
  const wss = new WebSocketServer({ noServer: true });
  const upgrade: UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      const u = requestUrl(req.url ?? '/');
      let target: ResourceTarget;
      let prepared;
      try {
        // The same stages as every other request; a WebSocket upgrade never enters fastify's hooks.
        await authenticate(req, opts.authentication, logger);
        await impersonate(req, authorizer);
        await authorize(req, authorizer);
        // /apis/<group>/<version>/... of a non-local APIService: the upgrade goes on to its server (aggregator/proxy-upgrade.ts).
        const [root, group, version] = u.pathname.split('/').filter((p) => p !== '');
        const remote = root === 'apis' && group && version ? aggregator.remoteFor(group, version) : undefined;
        const user = requestUser(req);
        if (remote && user) return await aggregator.proxyUpgrade(remote, req, socket, head, user);
        // pods|services|nodes/<name>/proxy (routes/proxy-upgrade.ts): a WebSocket to the backend.
        const proxied = parseProxyPath(u.pathname);
        if (proxied) return await serveProxyUpgrade(ctx, proxied, req, socket, head, u);
        // pods/<name>/portforward (routes/port-forward.ts) joins the client to the kubelet.
        if (await servePortForwardUpgrade(ctx, authorizer, req, socket, head, u)) return;
        const t = parseTarget(u.pathname);
        // pods/exec and pods/attach (routes/pod-exec.ts): tunnelled to the pod's kubelet.
        if (t.kind === 'resource' && t.resource === R.pods && t.name !== undefined && (t.subresource === 'exec' || t.subresource === 'attach')) {
          const url = await streamLocation(ctx, t.subresource, t.namespace, t.name, u.searchParams);
          tunnelUpgrade(ctx.kubeletClient, req, socket, head, url, (message) => {
            const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
            socket.end(`HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
          });
          return;
        }
        if (t.kind !== 'resource' || (t.name !== undefined && !t.watchPath)) throw errors.badRequest('only watches can be upgraded to a WebSocket');
        target = t;
        if (!t.watchPath && boolParam(u.searchParams, 'watch') !== true) throw errors.badRequest('only watches can be upgraded to a WebSocket');
        prepared = prepareWatch(ctx, target, u.searchParams, req.headers.accept);
      } catch (e) {
        if (e instanceof PlainTextError) {
          socket.end(`HTTP/1.1 ${e.code} Internal Server Error\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(e.text)}\r\nconnection: close\r\n\r\n${e.text}`);
          return;
        }
        const st = toStatus(toStatusError(e));
        const body = JSON.stringify(st);
        socket.end(`HTTP/1.1 ${st.code} ${st.reason ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const sink = wsSink(ws, socket instanceof Socket ? socket : undefined);
        hub
          .start(prepared.params, prepared.session, sink, () => undefined)
          .then((session) => trackWatcher(ctx, prepared.resource, session))
          .catch((e: unknown) => {
            ws.send(JSON.stringify({ type: 'ERROR', object: toStatus(toStatusError(e)) }));
            ws.close(1000);
          });
      });
    })();
  };
  app.server.on('upgrade', upgrade);

  let stopCrdCleanup: (() => void) | undefined;
  let aggregatorStarted = false;
  return {
    app,
    ctx,
    upgrade,
    async start() {
      await cacher.start();
      stopCrdCleanup = startCustomResourceCleanup(cacher, ctx.registry, logger);
    },
    startAggregator() {
      if (opts.aggregator && !aggregatorStarted) aggregator.start();
      aggregatorStarted = true;
    },
    async close() {
      stopCrdCleanup?.();
      aggregator.stop();
      nodeGraph?.stopKeepUp();
      hub.stop();
      cacher.stop();
      for (const c of wss.clients) c.terminate();
      await app.close();
      ctx.kubeletClient.close();
    },
  };
}

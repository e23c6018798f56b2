// The REST client: typed verbs over the Kubernetes paths of a resource-table entry, one keep-alive undici
// Agent per client, a QPS/burst token bucket in front of every request (client-go's flowcontrol), and
// retries: 429/503 with Retry-After for every verb, connection failures before the request was sent for
// every verb, broken connections and 5xx only for reads. Errors surface as StatusError from @kemu/api.
// Fenced writes (kemu; see write-fence.ts): with fenceWrites(fence), every mutating request but those to
// the fence's own Lease carries X-Kemu-Lease, starts only while the fence admits it (checked right before
// each attempt is sent, after the rate limiter), and is aborted when the leader's term ends.
import tls from 'node:tls';
import { Agent, request, type Dispatcher } from 'undici';
import { LEASE_FENCE_HEADER, R, StatusError, groupVersion, type DeleteOptions, type KubeList, type KubeObject, type ResourceInfo, type Status, type WatchEvent } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import type { ClientConfig } from './config.ts';
import { TokenBucket } from './ratelimit.ts';
import { isConnectError, isConnectionReset, statusErrorFromBody } from './errors.ts';
import { IdleDeadline, decodeWatchStream } from './watch.ts';
import { DeadlineQueue } from './deadlines.ts';
import type { WriteFence } from './write-fence.ts';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** 'Exact' | 'NotOlderThan' (extra). */
  resourceVersionMatch?: string;
  signal?: AbortSignal;
}

export interface WatchOptions extends ListOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  signal?: AbortSignal;
  /** Dead-stream detection (extra): abort with WatchIdleTimeoutError when no byte arrives for this long. 0 = off (default). */
  idleTimeoutMs?: number;
}

export interface RestClientOptions {
  clock?: Clock;
  logger?: Logger;
  /** Retries after the first attempt (default 5). */
  maxRetries?: number;
  /** First back-off for connection errors and 5xx (default 200 ms, doubling, capped at 2 s). */
  retryBackoffMs?: number;
  /** Most connections open to the server at once (default: no limit); requests beyond it wait for one. */
  maxConnections?: number;
  /** After setClientCertificate, how long requests on the old certificate's connections may still run (default 10 s). */
  rotationGraceMs?: number;
  /** A bearer token that changes (e.g. a TokenRequest token): asked before every attempt, instead of config.token. */
  tokenSource?: TokenSource;
}

/** client-go's oauth2 TokenSource behind ResettableTokenSourceWrapTransport: a cached, refreshed bearer token. */
export interface TokenSource {
  token(signal?: AbortSignal): Promise<string>;
  /** The server answered 401: drop the cached token so the next request gets a fresh one. */
  reset(): void;
}

interface SendOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** "/api/v1/namespaces/default/pods/web/status" for a resource-table entry. */
export function resourcePath(r: ResourceInfo, namespace: string | undefined, name?: string, subresource?: string): string {
  let p = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${r.plural}`;
  if (name !== undefined) {
    if (name === '') throw new StatusError('BadRequest', 'resource name may not be empty');
    p += `/${encodeURIComponent(name)}`;
  }
  if (subresource) p += `/${subresource}`;
  return p;
}

function buildQuery(q: SendOptions['query']): string {
  if (!q) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function listQuery(o: ListOptions | undefined): Record<string, string | number | undefined> {
  return {
    labelSelector: o?.labelSelector,
    fieldSelector: o?.fieldSelector,
    limit: o?.limit,
    continue: o?.continue,
    resourceVersion: o?.resourceVersion,
    resourceVersionMatch: o?.resourceVersionMatch,
  };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new StatusError('InternalError', `unable to decode the response to ${what} as JSON: ${text.slice(0, 200)}`);
  }
}

function asObject<T>(v: unknown, what: string): T {
  if (typeof v !== 'object' || v === null || typeof (v as { metadata?: unknown }).metadata !== 'object') {
    throw new StatusError('InternalError', `the response to ${what} is not an API object`);
  }
  return v as T;
}

function asList<T>(v: unknown, what: string): KubeList<T> {
  const l = asObject<KubeList<T>>(v, what);
  if (l.items === null || l.items === undefined) l.items = [];
  if (!Array.isArray(l.items)) throw new StatusError('InternalError', `the response to ${what} is not a list`);
  return l;
}

/** One signal aborted by either (listeners removed on release; AbortSignal.any would tie them to a long-lived term signal). */
function eitherSignal(a: AbortSignal | undefined, b: AbortSignal): { signal: AbortSignal; release(): void } {
  if (!a) return { signal: b, release: () => undefined };
  const ctrl = new AbortController();
  const onA = () => ctrl.abort(a.reason);
  const onB = () => ctrl.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener('abort', onA, { once: true });
    b.addEventListener('abort', onB, { once: true });
  }
  return {
    signal: ctrl.signal,
    release: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/** Retry-After in ms (seconds or an HTTP date), undefined when absent. */
function retryAfterMs(h: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(h) ? h[0] : h;
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export class RestClient {
  readonly config: ClientConfig;
  private agent: Agent;
  private readonly agentOptions: Agent.Options;
  /** How long connections of a replaced client certificate may finish their requests (see setClientCertificate). */
  private readonly rotationGraceMs: number;
  private readonly limiter: TokenBucket;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly maxRetries: number;
  private readonly backoffMs: number;
  private readonly baseHeaders: Record<string, string>;
  /** Every request's timeout on one timer (watches have none: they carry only the caller's signal). */
  private readonly deadlines: DeadlineQueue;
  private fence: WriteFence | undefined;
  private readonly tokenSource: TokenSource | undefined;
  /** The fence's own Lease object: its writes (renewals, the release) are never fenced. */
  private fenceExemptPath = '';

  constructor(config: ClientConfig, opts: RestClientOptions = {}) {
    this.config = config;
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger();
    this.maxRetries = opts.maxRetries ?? 5;
    this.backoffMs = opts.retryBackoffMs ?? 200;
    this.limiter = new TokenBucket(config.qps ?? 50, config.burst ?? 100, this.clock);
    this.deadlines = new DeadlineQueue(config.timeoutMs ?? 60_000);
    // Watches live for minutes: the Agent's own body/headers timeouts are off; each request carries its own.
    this.agentOptions = {
      keepAliveTimeout: 30_000,
      bodyTimeout: 0,
      headersTimeout: 0,
      ...(opts.maxConnections ? { connections: opts.maxConnections } : {}),
    };
    this.rotationGraceMs = opts.rotationGraceMs ?? 10_000;
    this.agent = this.newAgent();
    this.baseHeaders = { 'user-agent': config.userAgent ?? 'kemu/v0.1.0', accept: 'application/json' };
    this.tokenSource = opts.tokenSource;
    if (config.token && !this.tokenSource) this.baseHeaders.authorization = `Bearer ${config.token}`;
  }

  private newAgent(): Agent {
    const c = this.config;
    const connect: Record<string, unknown> = {};
    if (c.caData || c.certData || c.keyData) {
      // One parsed CA bundle and key pair for every connection of this client (tls.connect would parse them
      // again per connection): many clients in one process (the kubelet's per-node identities) stay small.
      connect.secureContext = tls.createSecureContext({
        ...(c.caData ? { ca: c.caData } : {}),
        ...(c.certData ? { cert: c.certData } : {}),
        ...(c.keyData ? { key: c.keyData } : {}),
      });
    }
    if (c.insecureSkipTLSVerify) connect.rejectUnauthorized = false;
    return new Agent({ ...this.agentOptions, connect });
  }

  /**
   * Switches the client certificate (certificate rotation): requests from now on go through new connections
   * that present it. The old connections take no new request; those in flight (watches too) may finish for
   * rotationGraceMs, then they are closed, as client-go closes every connection of the old certificate, so
   * nothing keeps talking under an identity that may have expired.
   */
  setClientCertificate(certPem: string | Buffer, keyPem: string | Buffer): void {
    this.config.certData = Buffer.from(certPem);
    this.config.keyData = Buffer.from(keyPem);
    const old = this.agent;
    this.agent = this.newAgent();
    void old.close().catch(() => undefined);
    setTimeout(() => void old.destroy().catch(() => undefined), this.rotationGraceMs).unref();
  }

  /** The fence set by fenceWrites (clients built for the same component share it). */
  get writeFence(): WriteFence | undefined {
    return this.fence;
  }

  /** The request headers with the current bearer token when a token source is set. */
  private async authHeaders(headers: Record<string, string>, signal: AbortSignal | undefined): Promise<Record<string, string>> {
    if (!this.tokenSource) return headers;
    return { ...headers, authorization: `Bearer ${await this.tokenSource.token(signal)}` };
  }

  /**
   * From now on every write (POST, PUT, PATCH, DELETE) goes through the leader's fence: it carries the
   * X-Kemu-Lease header and is refused locally (FencedWriteError) once the leader may no longer write.
   * Writes to the fence's Lease object itself are exempt. undefined turns fencing off.
   */
  fenceWrites(fence: WriteFence | undefined): void {
    this.fence = fence;
    this.fenceExemptPath = fence ? resourcePath(R.leases, fence.lease.namespace, fence.lease.name) : '';
  }

  /** Closes idle keep-alive connections (and aborts in-flight ones). */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  async get<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, name: string, opts?: { signal?: AbortSignal }): Promise<T> {
    const p = resourcePath(r, namespace, name);
    return asObject<T>(await this.json('GET', p, { signal: opts?.signal }), `GET ${p}`);
  }

  async list<T extends KubeObject>(r: ResourceInfo, namespace?: string, opts?: ListOptions): Promise<KubeList<T>> {
    const p = resourcePath(r, namespace);
    return asList<T>(await this.json('GET', p, { query: listQuery(opts), signal: opts?.signal }), `GET ${p}`);
  }

  async create<T extends KubeObject>(
    r: ResourceInfo,
    namespace: string | undefined,
    obj: T,
    opts?: { dryRun?: boolean; fieldManager?: string; signal?: AbortSignal },
  ): Promise<T> {
    const p = resourcePath(r, namespace);
    const body = { apiVersion: groupVersion(r), kind: r.kind, ...obj };
    const query = { dryRun: opts?.dryRun ? 'All' : undefined, fieldManager: opts?.fieldManager };
    return asObject<T>(await this.json('POST', p, { body, query, signal: opts?.signal }), `POST ${p}`);
  }

  async update<T extends KubeObject>(
    r: ResourceInfo,
    namespace: string | undefined,
    obj: T,
    opts?: { subresource?: 'status' | 'scale' | 'finalize' | 'approval'; signal?: AbortSignal },
  ): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new StatusError('BadRequest', 'resource name may not be empty');
    const p = resourcePath(r, namespace, name, opts?.subresource);
    const body = opts?.subresource === 'scale' ? obj : { apiVersion: groupVersion(r), kind: r.kind, ...obj };
    return asObject<T>(await this.json('PUT', p, { body, signal: opts?.signal }), `PUT ${p}`);
  }

  updateStatus<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, obj: T): Promise<T> {
    return this.update(r, namespace, obj, { subresource: 'status' });
  }

  async patch<T extends KubeObject>(
    r: ResourceInfo,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    type: 'merge' | 'json' | 'strategic' | 'apply',
    opts?: { subresource?: 'status' | 'scale'; fieldManager?: string; force?: boolean },
  ): Promise<T> {
    const p = resourcePath(r, namespace, name, opts?.subresource);
    if (type === 'apply' && !opts?.fieldManager) {
      throw new StatusError('BadRequest', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    }
    const query = { fieldManager: opts?.fieldManager, force: opts?.force ? 'true' : undefined };
    return asObject<T>(await this.json('PATCH', p, { body: patch, contentType: PATCH_TYPES[type], query }), `PATCH ${p}`);
  }

  async delete(r: ResourceInfo, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<KubeObject | Status> {
    const p = resourcePath(r, namespace, name);
    const body = opts ? { kind: 'DeleteOptions', apiVersion: 'v1', ...opts } : undefined;
    return asObject<KubeObject | Status>(await this.json('DELETE', p, { body }), `DELETE ${p}`);
  }

  async deleteCollection(r: ResourceInfo, namespace: string | undefined, opts?: ListOptions & DeleteOptions): Promise<void> {
    const p = resourcePath(r, namespace);
    const { labelSelector, fieldSelector, limit, continue: cont, resourceVersion, resourceVersionMatch, signal, ...del } = opts ?? {};
    const query = listQuery({ labelSelector, fieldSelector, limit, continue: cont, resourceVersion, resourceVersionMatch });
    const body = Object.keys(del).length > 0 ? { kind: 'DeleteOptions', apiVersion: 'v1', ...del } : undefined;
    await this.json('DELETE', p, { body, query, signal });
  }

  async createSubresource<T = unknown>(r: ResourceInfo, namespace: string | undefined, name: string, subresource: string, body: unknown): Promise<T> {
    const p = resourcePath(r, namespace, name, subresource);
    return (await this.json('POST', p, { body })) as T;
  }

  /**
   * A long-lived watch. Yields events until the server ends the stream (or `timeoutSeconds` passes), the
   * signal aborts (then it just ends), or an error: ERROR events throw their Status (410 → StatusError
   * 'Expired'), a broken connection throws, and with idleTimeoutMs a silent stream throws WatchIdleTimeoutError.
   */
  watch<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const p = resourcePath(r, namespace);
    const query: Record<string, string | number | undefined> = {
      ...listQuery(opts),
      watch: 'true',
      allowWatchBookmarks: opts.allowWatchBookmarks ? 'true' : undefined,
      timeoutSeconds: opts.timeoutSeconds,
    };
    if (opts.sendInitialEvents) {
      query.sendInitialEvents = 'true';
      query.resourceVersionMatch = 'NotOlderThan';
    }
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        const idle = new IdleDeadline(opts.idleTimeoutMs ?? 0);
        const signals = [idle.signal, ...(opts.signal ? [opts.signal] : [])];
        const signal = AbortSignal.any(signals);
        let res: Dispatcher.ResponseData | undefined;
        try {
          await self.limiter.wait(opts.signal);
          const headers = await self.authHeaders(self.baseHeaders, opts.signal);
          res = await request(self.config.server + p + buildQuery(query), {
            method: 'GET',
            headers,
            dispatcher: self.agent,
            signal,
          });
          idle.touch();
          if (res.statusCode === 401) self.tokenSource?.reset();
          if (res.statusCode !== 200) throw statusErrorFromBody(res.statusCode, await res.body.text());
          yield* decodeWatchStream<T>(res.body, () => idle.touch());
        } catch (e) {
          if (opts.signal?.aborted && !idle.expired) return; // cancelled by the caller: a quiet end
          if (idle.expired) throw idle.signal.reason;
          throw e;
        } finally {
          idle.stop();
          if (res && !res.body.destroyed) res.body.destroy();
        }
      },
    };
  }

  /** Any path (e.g. /version, /readyz): the status and body text, never throwing on an HTTP status. */
  async raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
    const res = await this.send(method.toUpperCase(), path, { body });
    return { status: res.status, body: res.text };
  }

  private async json(method: string, path: string, o: SendOptions): Promise<unknown> {
    const res = await this.send(method, path, o);
    if (res.status < 200 || res.status > 299) throw statusErrorFromBody(res.status, res.text);
    return parseJson(res.text, `${method} ${path}`);
  }

  /** One logical request: throttled, retried as the file header says, with an overall timeout per attempt. */
  private async send(method: string, path: string, o: SendOptions): Promise<{ status: number; text: string }> {
    const url = this.config.server + path + buildQuery(o.query);
    const headers: Record<string, string> = { ...this.baseHeaders };
    let payload: string | undefined;
    if (o.body !== undefined) {
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    const fence = this.fence && !READ_METHODS.has(method) && path !== this.fenceExemptPath ? this.fence : undefined;
    if (!fence) return this.attempts(method, path, url, headers, payload, o.signal, undefined);
    // The term's signal as it is now: a write begun in one term never lands in the next.
    const linked = eitherSignal(o.signal, fence.signal);
    try {
      return await this.attempts(method, path, url, headers, payload, linked.signal, fence);
    } finally {
      linked.release();
    }
  }

  private async attempts(
    method: string,
    path: string,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
    callerSignal: AbortSignal | undefined,
    fence: WriteFence | undefined,
  ): Promise<{ status: number; text: string }> {
    const timeoutMs = this.config.timeoutMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      await this.limiter.wait(callerSignal);
      const sent = await this.authHeaders(headers, callerSignal);
      if (fence) {
        // Checked synchronously before the request leaves: nothing queued can run in between.
        let token = fence.admit();
        while (token === undefined) {
          await fence.nextRenewal(callerSignal);
          token = fence.admit();
        }
        sent[LEASE_FENCE_HEADER] = token;
      }
      const deadline = this.deadlines.start(callerSignal);
      const signal = deadline.signal;
      let status: number;
      let text: string;
      let retryAfter: number | undefined;
      try {
        const res = await request(url, { method: method as Dispatcher.HttpMethod, headers: sent, body: payload, dispatcher: this.agent, signal });
        status = res.statusCode;
        text = await res.body.text();
        retryAfter = retryAfterMs(res.headers['retry-after'], this.clock.now());
        deadline.release();
      } catch (e) {
        deadline.release();
        if (callerSignal?.aborted) throw callerSignal.reason ?? e;
        const retryable = isConnectError(e) || (IDEMPOTENT_METHODS.has(method) && isConnectionReset(e));
        if (!retryable || attempt >= this.maxRetries) {
          if (signal.aborted) throw new StatusError('Timeout', `${method} ${path}: the client timed out after ${timeoutMs}ms`, undefined, 504);
          throw e;
        }
        const wait = this.backoff(attempt);
        this.log.debug({ method, path, err: String(e), attempt, wait }, 'request failed, retrying');
        await this.clock.sleep(wait, callerSignal);
        continue;
      }
      if (status === 401) this.tokenSource?.reset();
      const throttled = status === 429 || (status === 503 && retryAfter !== undefined);
      const serverError = status >= 500 && READ_METHODS.has(method);
      if ((throttled || serverError) && attempt < this.maxRetries) {
        const wait = Math.min(retryAfter ?? this.backoff(attempt), 30_000);
        this.log.debug({ method, path, status, attempt, wait }, 'retrying request');
        await this.clock.sleep(wait, callerSignal);
        continue;
      }
      return { status, text };
    }
  }

  private backoff(attempt: number): number {
    return Math.min(this.backoffMs * 2 ** attempt, 2_000);
  }
}

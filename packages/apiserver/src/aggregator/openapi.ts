// The OpenAPI of aggregated API servers (kube-aggregator's OpenAPI v2 and v3 aggregation controllers). For each
// APIService with a service, its server's /openapi/v2 is downloaded as system:aggregator and merged into the
// apiserver's (openapi-spec.ts), and its /openapi/v3 index is read: the group-versions it lists are added to the
// apiserver's /openapi/v3 and their documents proxied to it (a server answering 404 there gets its v2 converted
// and served from here). Downloads happen when an APIService appears, when its spec changes, at once when it
// changes after a failed download (as Kubernetes requeues on update), every refresh period (1 min) after a
// success and with an exponential backoff from that period (up to an hour) after a failure; the last good
// download is kept meanwhile and dropped with the APIService.
import type { KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Clock } from '../clock.ts';
import { asRecord, asString, isRecord } from '../validation/field.ts';
import type { ListObjects } from '../service-endpoint.ts';
import { connectionRefused, joinHostPort, resolveBackend } from './routing.ts';
import { isAvailable } from './target.ts';
import { authProxyHeaders, backendRequest, serviceRefOf, tlsOf, type ProxyClientIdentity } from './transport.ts';
import { documentHash, filterSwagger, mergeSwagger, swaggerToV3, type SwaggerParts } from './openapi-spec.ts';

const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_BACKOFF_MS = 3_600_000;

interface Entry {
  apiService: KubeObject;
  spec: string;
  /** The resourceVersion of the APIService the last download began with. */
  attempted: string;
  /** The last good v2 download, filtered to the group-version's paths. */
  v2?: SwaggerParts;
  /** The group-version paths of the last good /openapi/v3 index, with their serverRelativeURL. */
  v3?: Record<string, { serverRelativeURL: string }>;
  /** A server without /openapi/v3: its v2 as the group-version's v3 document. */
  legacyV3?: Record<string, unknown>;
  next: number;
  failures: number;
  busy: boolean;
}

/** Where /openapi/v3/<path> is served from: a document held here, or the APIService to proxy to. */
export type V3Source = { doc: Record<string, unknown> } | { apiService: KubeObject };

const priority = (o: KubeObject): [number, number] => {
  const s = asRecord(o.spec) ?? {};
  return [typeof s.groupPriorityMinimum === 'number' ? s.groupPriorityMinimum : 0, typeof s.versionPriority === 'number' ? s.versionPriority : 0];
};

export class AggregatedOpenAPI {
  private readonly entries = new Map<string, Entry>();
  private merged: { base: Record<string, unknown>; doc: Record<string, unknown> } | undefined;

  constructor(
    private readonly list: ListObjects,
    private readonly id: ProxyClientIdentity,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly routeToEndpoints: boolean,
    private readonly refreshMs = 60_000,
  ) {}

  /** Follows the current APIServices; starts the downloads that are due. */
  sync(apiServices: readonly KubeObject[]): void {
    const seen = new Set<string>();
    const now = this.clock.now();
    for (const svc of apiServices) {
      if (!serviceRefOf(svc)) continue;
      const name = svc.metadata.name ?? '';
      seen.add(name);
      const spec = JSON.stringify(svc.spec);
      const resourceVersion = svc.metadata.resourceVersion ?? '';
      let e = this.entries.get(name);
      if (!e) this.entries.set(name, (e = { apiService: svc, spec, attempted: '', next: now, failures: 0, busy: false }));
      else if (e.spec !== spec || (e.failures > 0 && e.attempted !== resourceVersion)) e.next = now;
      Object.assign(e, { apiService: svc, spec });
      if (!e.busy && now >= e.next) void this.download(name, e);
    }
    for (const name of [...this.entries.keys()]) {
      if (seen.has(name)) continue;
      this.entries.delete(name);
      this.merged = undefined;
    }
  }

  /** The apiserver's Swagger document with the aggregated servers' paths and definitions. */
  mergeV2(base: Record<string, unknown>): Record<string, unknown> {
    if (this.merged?.base === base) return this.merged.doc;
    const parts = this.sorted()
      .map((e) => e.v2)
      .filter((p): p is SwaggerParts => p !== undefined);
    const doc = parts.length === 0 ? base : mergeSwagger(base, parts);
    this.merged = { base, doc };
    return doc;
  }

  /** The apiserver's /openapi/v3 index with the group-versions of the aggregated servers it does not list. */
  mergeIndex(base: Record<string, unknown>): Record<string, unknown> {
    const paths: Record<string, unknown> = { ...(asRecord(base.paths) ?? {}) };
    for (const e of this.sorted()) for (const [p, v] of Object.entries(e.v3 ?? {})) if (!(p in paths)) paths[p] = v;
    return { ...base, paths };
  }

  /** The source of /openapi/v3/<path> ("apis/<group>/<version>") among the aggregated servers. */
  sourceOf(path: string): V3Source | undefined {
    for (const e of this.sorted()) {
      if (!e.v3 || !(path in e.v3)) continue;
      return e.legacyV3 ? { doc: e.legacyV3 } : { apiService: e.apiService };
    }
    return undefined;
  }

  /** Kubernetes' merge order: groupPriorityMinimum, then versionPriority (both descending), then name. */
  private sorted(): Entry[] {
    return [...this.entries.values()].sort((a, b) => {
      const [ga, va] = priority(a.apiService);
      const [gb, vb] = priority(b.apiService);
      if (ga !== gb) return gb - ga;
      if (va !== vb) return vb - va;
      return (a.apiService.metadata.name ?? '') < (b.apiService.metadata.name ?? '') ? -1 : 1;
    });
  }

  private async download(name: string, e: Entry): Promise<void> {
    e.busy = true;
    const svc = e.apiService;
    e.attempted = svc.metadata.resourceVersion ?? '';
    const spec = asRecord(svc.spec) ?? {};
    const gvPath = `apis/${asString(spec.group) ?? ''}/${asString(spec.version) ?? ''}`;
    try {
      // The proxy handler Kubernetes downloads through answers 503 while the APIService is not available.
      if (!isAvailable(svc)) throw new Error('service unavailable');
      const v2 = await this.get(svc, '/openapi/v2');
      if (v2.code !== 200 && v2.code !== 404) throw new Error(`failed to retrieve openAPI spec, http error: ResponseCode: ${v2.code}`);
      const v2Doc: unknown = v2.code === 200 ? JSON.parse(v2.body) : undefined;
      const v3 = await this.get(svc, '/openapi/v3');
      if (v3.code !== 200 && v3.code !== 404) throw new Error(`failed to retrieve openAPI v3 discovery, http error: ResponseCode: ${v3.code}`);
      if (this.entries.get(name) !== e) return;
      e.v2 = v2Doc === undefined ? undefined : filterSwagger(v2Doc, `/${gvPath}/`);
      if (v3.code === 200) {
        const paths = asRecord(asRecord(JSON.parse(v3.body))?.paths) ?? {};
        e.v3 = Object.fromEntries(Object.entries(paths).flatMap(([p, v]) => (isRecord(v) && typeof v.serverRelativeURL === 'string' ? [[p, { serverRelativeURL: v.serverRelativeURL }]] : [])));
        delete e.legacyV3;
      } else if (v2Doc !== undefined) {
        e.legacyV3 = swaggerToV3(v2Doc);
        e.v3 = { [gvPath]: { serverRelativeURL: `/openapi/v3/${gvPath}?hash=${documentHash(e.legacyV3)}` } };
      } else {
        delete e.v3;
        delete e.legacyV3;
      }
      this.merged = undefined;
      e.failures = 0;
      e.next = this.clock.now() + this.refreshMs;
    } catch (err) {
      e.failures++;
      e.next = this.clock.now() + Math.min(this.refreshMs * 2 ** (e.failures - 1), MAX_BACKOFF_MS);
      this.logger.debug({ apiservice: name, err: err instanceof Error ? err.message : String(err) }, 'loading OpenAPI spec failed');
    } finally {
      e.busy = false;
    }
  }

  /** GET `path` from one endpoint of the APIService's Service, as system:aggregator. */
  private async get(svc: KubeObject, path: string): Promise<{ code: number; body: string }> {
    const ref = serviceRefOf(svc);
    if (!ref) throw new Error('local APIService');
    const b = await resolveBackend(ref, this.list, this.routeToEndpoints);
    if (!b.dial) throw connectionRefused();
    const target = { ...b.dial, ...tlsOf(svc, ref) };
    return new Promise((resolve, reject) => {
      const req = backendRequest(target, this.id, {
        method: 'GET',
        path,
        headers: { accept: 'application/json', host: joinHostPort(b.shown), ...authProxyHeaders({ username: 'system:aggregator', groups: [] }) },
        timeoutMs: DOWNLOAD_TIMEOUT_MS,
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end();
    });
  }
}

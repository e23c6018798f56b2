// The aggregator's controllers, run by every replica over its watch cache: the local APIServices kept
// registered (local-apiservices.ts), each APIService's Available condition kept current (availability.ts) and
// the discovery of available aggregated servers merged into the served resources (discovery.ts), and their
// OpenAPI downloaded for the apiserver's /openapi/v2 and /openapi/v3 (openapi.ts). Runs after
// each watch batch and on a timer; a remote server is checked again when its APIService, Service or endpoints
// change, every resync period (Kubernetes' 30 s), and every tick while it fails.
import { formatTime, RESOURCES, R, servedResources, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UserInfo } from '../authn/user.ts';
import type { Logger } from '@kemu/base';
import type { Clock } from '../clock.ts';
import type { Registry } from '../registry/registry.ts';
import type { Cacher } from '../watch/cacher.ts';
import { objectKey } from '../storage.ts';
import { asRecord, asString, jsonEqual } from '../validation/field.ts';
import type { ListObjects } from '../service-endpoint.ts';
import { checkAvailability, LOCAL_AVAILABLE, withAvailability, type Availability } from './availability.ts';
import { AggregatedDiscovery, resourcesOfList } from './discovery.ts';
import { AUTOMANAGED_LABEL, localAPIServices, localPriority, syncLocalAPIServices } from './local-apiservices.ts';
import type { Check } from '../health.ts';
import { AggregatedOpenAPI } from './openapi.ts';
import { proxyToAPIService, type AggregatedRequest } from './proxy.ts';
import { isAvailable } from './target.ts';
import { proxyUpgradeToAPIService } from './proxy-upgrade.ts';
import { serviceRefOf, type ProxyClientIdentity } from './transport.ts';

export interface AggregatorOptions {
  /** --proxy-client-cert-file / --proxy-client-key-file contents. */
  proxyClient?: ProxyClientIdentity;
  /** How often a passing remote APIService is checked again (default 30 s). */
  resyncMs?: number;
  /** The timer (default 1 s): failing checks are retried this often. */
  tickMs?: number;
  /**
   * --enable-aggregator-routing: true sends requests to an endpoint of the Service, false (the default) to its
   * cluster IP, which kemu reaches through an endpoint as kube-proxy would (routing.ts).
   */
  routeToEndpoints?: boolean;
  /** How often an aggregated server's OpenAPI is downloaded again (Kubernetes' 1 min). */
  openapiRefreshMs?: number;
}

const BUILT_IN = new Set<ResourceInfo>(RESOURCES);

interface Checked {
  fingerprint: string;
  at: number;
  result: Availability;
}

export class Aggregator {
  readonly discovery = new AggregatedDiscovery();
  readonly openapi: AggregatedOpenAPI;
  private readonly checked = new Map<string, Checked>();
  private readonly id: ProxyClientIdentity;
  private readonly routeToEndpoints: boolean;
  private readonly resyncMs: number;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private begun = false;
  private again = false;
  private started = false;
  private soon: NodeJS.Timeout | undefined;
  // Watch batches come in bursts under load: one run per 50 ms at most.
  private readonly onBatch = () => {
    this.soon ??= setTimeout(() => {
      this.soon = undefined;
      void this.run();
    }, 50);
  };
  readonly list: ListObjects;

  constructor(
    private readonly cacher: Cacher,
    private readonly registry: Registry,
    private readonly logger: Logger,
    private readonly clock: Clock,
    opts: AggregatorOptions = {},
  ) {
    this.id = opts.proxyClient ?? {};
    this.resyncMs = opts.resyncMs ?? 30_000;
    this.tickMs = opts.tickMs ?? 1000;
    this.list = async (r, ns) => this.cacher.cache(r).snapshot(ns, undefined).map((o) => o.object);
    this.routeToEndpoints = opts.routeToEndpoints ?? false;
    this.openapi = new AggregatedOpenAPI(this.list, this.id, clock, logger, this.routeToEndpoints, opts.openapiRefreshMs);
  }

  start(): void {
    this.begun = true;
    this.cacher.onBatch.add(this.onBatch);
    this.timer = setInterval(() => void this.run(), this.tickMs);
    this.timer.unref();
    void this.run();
  }

  stop(): void {
    this.cacher.onBatch.delete(this.onBatch);
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
  }

  /**
   * [groupPriorityMinimum, versionPriority] of a group-version, for the order of discovery: its APIService's,
   * else (before it is registered, or without the aggregator) what its local APIService gets.
   */
  readonly priorityOf = (group: string, version: string): readonly [number, number] => {
    const found = this.cacher.isReady() ? this.cacher.cache(R.apiservices).objects.get(objectKey(R.apiservices, undefined, `${version}.${group}`))?.object : undefined;
    const spec = asRecord(found?.spec);
    if (spec && typeof spec.groupPriorityMinimum === 'number' && typeof spec.versionPriority === 'number') return [spec.groupPriorityMinimum, spec.versionPriority];
    return localPriority(group, version);
  };

  /**
   * The /healthz, /livez and /readyz checks of kube-apiserver's aggregator, in Kubernetes' order: its post-start
   * hooks (ok once the aggregator runs; kube-apiserver-autoregistration once the local APIServices were first
   * synced) and autoregister-completion, which fails until every built-in group-version's APIService exists and is
   * Available (Kubernetes' "missing APIService" check).
   */
  healthChecks(): Record<string, Check> {
    const running = () => this.begun && this.cacher.isReady();
    const hook = (name: string): [string, Check] => [`poststarthook/${name}`, running];
    return Object.fromEntries([
      ...(this.id.cert && this.id.key ? [hook('aggregator-reload-proxy-client-cert')] : []),
      hook('start-kube-aggregator-informers'),
      hook('apiservice-status-local-available-controller'),
      hook('apiservice-status-remote-available-controller'),
      hook('apiservice-registration-controller'),
      hook('apiservice-discovery-controller'),
      ['poststarthook/kube-apiserver-autoregistration', () => running() && this.started],
      ['autoregister-completion', () => running() && this.autoregistered()],
      hook('apiservice-openapi-controller'),
      hook('apiservice-openapiv3-controller'),
    ]);
  }

  private autoregistered(): boolean {
    const cache = this.cacher.cache(R.apiservices);
    // Kubernetes' own group-versions: metrics.k8s.io is kemu's, and a user's metrics-server may take it over.
    const builtIn = new Set(RESOURCES.map((r) => `${r.version}.${r.group}`));
    return localAPIServices([])
      .filter((o) => o.metadata.labels?.[AUTOMANAGED_LABEL] === 'onstart' && builtIn.has(o.metadata.name ?? ''))
      .every((o) => {
        const found = cache.objects.get(objectKey(R.apiservices, undefined, o.metadata.name ?? ''))?.object;
        return found !== undefined && isAvailable(found);
      });
  }

  /** The non-local APIService serving /apis/<group>/<version>, if any. */
  remoteFor(group: string, version: string): KubeObject | undefined {
    if (!this.cacher.isReady()) return undefined;
    const found = this.cacher.cache(R.apiservices).objects.get(objectKey(R.apiservices, undefined, `${version}.${group}`))?.object;
    return found && serviceRefOf(found) ? found : undefined;
  }

  proxy(apiService: KubeObject, req: AggregatedRequest, res: ServerResponse): Promise<void> {
    return proxyToAPIService(apiService, req, res, this.list, this.id, this.routeToEndpoints);
  }

  proxyUpgrade(apiService: KubeObject, req: IncomingMessage, socket: Duplex, head: Buffer, user: UserInfo): Promise<void> {
    return proxyUpgradeToAPIService(apiService, req, socket, head, user, this.list, this.id, this.routeToEndpoints);
  }

  private apiServices(): KubeObject[] {
    return this.cacher.cache(R.apiservices).snapshot(undefined, undefined).map((o) => o.object);
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        if (!this.cacher.isReady()) break;
        await this.syncOnce();
      } while (this.again);
    } catch (e) {
      this.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'aggregator sync failed');
    } finally {
      this.running = false;
    }
  }

  private async syncOnce(): Promise<void> {
    const aggregated = this.discovery.groupVersions();
    const crdGVs = new Set(servedResources().filter((r) => !BUILT_IN.has(r) && !aggregated.has(`${r.group}/${r.version}`)).map((r) => `${r.group}/${r.version}`));
    await syncLocalAPIServices(this.registry, this.apiServices(), localAPIServices(crdGVs), !this.started);
    this.started = true;
    const keep = new Set<string>();
    for (const svc of this.apiServices()) {
      const name = svc.metadata.name ?? '';
      const spec = asRecord(svc.spec) ?? {};
      const gv = `${asString(spec.group) ?? ''}/${asString(spec.version) ?? ''}`;
      const ref = serviceRefOf(svc);
      let result: Availability;
      if (!ref) result = LOCAL_AVAILABLE;
      else {
        keep.add(gv);
        const fingerprint = await this.fingerprint(svc);
        const prev = this.checked.get(name);
        const now = this.clock.now();
        const fresh = prev && prev.fingerprint === fingerprint && now - prev.at < (prev.result.status === 'True' ? this.resyncMs : this.tickMs);
        if (prev && fresh) result = prev.result;
        else {
          result = await checkAvailability(svc, this.list, this.id, this.routeToEndpoints);
          this.checked.set(name, { fingerprint, at: this.clock.now(), result });
          if (result.status === 'True' && result.discovery !== undefined) {
            this.discovery.set(asString(spec.group) ?? '', asString(spec.version) ?? '', resourcesOfList(asString(spec.group) ?? '', asString(spec.version) ?? '', result.discovery));
          }
        }
      }
      await this.writeStatus(svc, result);
    }
    for (const name of [...this.checked.keys()]) if (!this.apiServices().some((o) => o.metadata.name === name)) this.checked.delete(name);
    this.discovery.retain(keep);
    this.openapi.sync(this.apiServices());
  }

  /** What the check of a remote APIService depends on: its spec, its Service and the Service's endpoints. */
  private async fingerprint(svc: KubeObject): Promise<string> {
    const ref = serviceRefOf(svc);
    if (!ref) return '';
    const rv = (r: ResourceInfo, pick: (o: KubeObject) => boolean) =>
      this.cacher
        .cache(r)
        .snapshot(ref.namespace, undefined)
        .map((o) => o.object)
        .filter(pick)
        .map((o) => o.metadata.resourceVersion ?? '')
        .join(',');
    const named = (o: KubeObject) => o.metadata.name === ref.name;
    return [JSON.stringify(svc.spec), rv(R.services, named), rv(R.endpoints, named), rv(R.endpointslices, (o) => o.metadata.labels?.['kubernetes.io/service-name'] === ref.name)].join('|');
  }

  private async writeStatus(svc: KubeObject, a: Availability): Promise<void> {
    const cur = (asRecord(svc.status)?.conditions ?? []) as unknown[];
    const was = cur.find((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && (c as Record<string, unknown>).type === 'Available');
    if (was && was.status === a.status && was.reason === a.reason && was.message === a.message) return;
    const name = svc.metadata.name ?? '';
    await this.registry
      .guaranteedUpdate(
        R.apiservices,
        undefined,
        name,
        (o) => {
          const next = withAvailability(o, a, formatTime(this.clock.now()));
          if (jsonEqual(next, o.status)) return o;
          o.status = next;
          return o;
        },
        { subresource: 'status' },
      )
      .catch((e: unknown) => this.logger.debug({ apiservice: name, err: e instanceof Error ? e.message : String(e) }, 'APIService status update failed'));
    if (!was || was.status !== a.status) this.logger.info({ name, newStatus: a.status, reason: a.reason, message: a.message }, 'changing APIService availability');
  }
}

// The cluster network as a pod's emulated shell reaches it (shell/network.ts): a destination is resolved as
// CoreDNS and kube-proxy would (service-table.ts), one ready endpoint is chosen, and the exchange goes to that
// pod's emulated server: over an in-memory connection (servers/pod-servers.ts) when this kubelet process runs
// the pod, else through the pod network to the process that does (pod-network.ts). As kube-proxy's rules:
// `internalTrafficPolicy: Local` (ClusterIP traffic) and `externalTrafficPolicy: Local` (NodePorts) keep to
// the endpoints on the client's node and drop the connection (no answer at all) when the Service has ready
// endpoints but none there; `sessionAffinity: ClientIP` sends a client's connections to the endpoint it last
// reached while that one stays ready and timeoutSeconds have not passed since (iptables' `recent` match).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Service } from '@kemu/api';
import type { Clock } from '@kemu/base';
import { connectPod, podListeners } from '../servers/pod-servers.ts';
import type { LoggedPod } from '../server/container-logs.ts';
import { serverView } from '../server/port-forward.ts';
import type { HttpExchange, HttpOutcome, ShellNetwork } from '../shell/network.ts';
import type { EndpointTarget, ServiceTable } from './service-table.ts';
import type { PodTraffic } from './traffic.ts';

export interface ClusterNetworkDeps {
  table: ServiceTable;
  findPod(namespace: string, name: string): LoggedPod | undefined;
  traffic: PodTraffic;
  clock: Clock;
  /** A connection to an endpoint another process runs (through its node's pod-network port); none: not reachable. */
  remote?: (e: EndpointTarget & { nodeName: string }) => Promise<Duplex | undefined>;
  /** The node this kube-proxy serves (its NodePorts; the node of a client pod this process runs when it has none). */
  nodeName?: string;
}

/** Where a client stands: its namespace (for DNS search), and its own pod (localhost and its IP reach it). */
export interface ClientPod {
  namespace: string;
  name: string;
  ip?: string;
}

export interface Target {
  address: string;
  endpoints: EndpointTarget[];
  /** The Service port (for turns and affinity); '' for a direct address. */
  key: string;
  /** Ready endpoints exist, but none the traffic policy allows: the rules DROP (the client gets no answer). */
  drop?: boolean;
  /** sessionAffinity ClientIP: the client's address and how long an idle affinity lasts. */
  affinity?: { client: string; timeoutMs: number };
}

/** The Service's ClientIP affinity for a client, if it has one (timeoutSeconds defaults to 10800). */
function affinityOf(s: Service, client: string | undefined): Pick<Target, 'affinity'> {
  if (s.spec?.sessionAffinity !== 'ClientIP' || !client) return {};
  const seconds = s.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800;
  return { affinity: { client, timeoutMs: seconds * 1000 } };
}

/** The endpoints a Local policy allows: those on `node`; `drop` when there are ready ones but none there. */
function localOnly(eps: EndpointTarget[], node: string | undefined): Pick<Target, 'endpoints' | 'drop'> {
  const local = eps.filter((e) => e.nodeName !== undefined && e.nodeName === node);
  return local.length === 0 && eps.length > 0 ? { endpoints: [], drop: true } : { endpoints: local };
}

export class ClusterNetwork {
  /** ClientIP affinities: by Service port and client address, the endpoint last reached and when. */
  private readonly affinities = new Map<string, { ip: string; at: number }>();

  constructor(private readonly deps: ClusterNetworkDeps) {}

  /** The network as `client` sees it. */
  forPod(client: ClientPod): ShellNetwork {
    return { request: (req, signal) => this.request(client, req, signal) };
  }

  /** The endpoints a connection to host:port may reach, or why there are none. */
  target(client: ClientPod, host: string, port: number): Target | { error: 'unknown-host' } | { error: 'refused'; address: string } {
    const t = this.deps.table;
    const self = { ip: client.ip ?? '127.0.0.1', port, namespace: client.namespace, pod: client.name };
    if (host === 'localhost' || host === '127.0.0.1' || host === '::1' || (client.ip && host === client.ip)) return { address: host === 'localhost' ? '127.0.0.1' : host, endpoints: [self], key: '' };
    const d = t.resolve(host, client.namespace);
    if (!d) {
      const ep = t.endpointByIP(host);
      if (ep) return { address: host, endpoints: [{ ...ep, port }], key: '' };
      // An address nothing answers for: an IP is dialled (and refused), a name is unknown.
      return /^[\d.]+$|:/.test(host) ? { error: 'refused', address: host } : { error: 'unknown-host' };
    }
    if (d.kind === 'endpoint') return { address: d.address, endpoints: [{ ...d.endpoint, port }], key: '' };
    const sp = t.servicePort(d.service, port);
    // kube-proxy REJECTs traffic to a Service without endpoints; a port the Service lacks is refused too.
    if (!sp) return { error: 'refused', address: d.address };
    const eps = t.readyEndpoints(d.service, sp);
    const key = `${d.service.metadata.namespace}/${d.service.metadata.name}:${port}`;
    const allowed = d.service.spec?.internalTrafficPolicy === 'Local' ? localOnly(eps, this.nodeOf(client)) : { endpoints: eps };
    return { address: d.address, key, ...allowed, ...affinityOf(d.service, client.ip) };
  }

  async request(client: ClientPod, req: HttpExchange, signal?: AbortSignal): Promise<HttpOutcome> {
    const t = this.target(client, req.host, req.port);
    if ('error' in t) return t.error === 'unknown-host' ? { kind: 'error', error: 'unknown-host' } : { kind: 'error', error: 'refused', address: t.address };
    if (t.drop) return { kind: 'error', error: 'timeout', address: t.address };
    return this.exchange(t, req, signal);
  }

  /** A connection to the next reachable endpoint of the target (in turn), counted for its pod; undefined: refused. */
  async connect(t: Target): Promise<Duplex | undefined> {
    const remote = this.deps.remote;
    const reachable = t.endpoints.flatMap((e): { e: EndpointTarget; w: LoggedPod | undefined }[] => {
      const w = e.namespace && e.pod ? this.deps.findPod(e.namespace, e.pod) : undefined;
      if (w) return [{ e, w }];
      return remote && e.nodeName ? [{ e, w: undefined }] : [];
    });
    const pick = this.choose(t, reachable);
    if (!pick) return undefined;
    if (!pick.w) return remote && pick.e.nodeName ? remote({ ...pick.e, nodeName: pick.e.nodeName }) : undefined;
    return this.connectCounted(pick.w, pick.e.namespace ?? '', pick.e.pod ?? '', pick.e.port);
  }

  /** The endpoint for this connection: the client's affinity while it holds, else the next in turn. */
  private choose<E extends { e: EndpointTarget }>(t: Target, reachable: E[]): E | undefined {
    if (reachable.length === 0) return undefined;
    const now = this.deps.clock.now();
    const ak = t.affinity ? `${t.key}|${t.affinity.client}` : undefined;
    const held = ak ? this.affinities.get(ak) : undefined;
    let pick = held && t.affinity && now - held.at <= t.affinity.timeoutMs ? reachable.find((r) => r.e.ip === held.ip) : undefined;
    pick ??= reachable[t.key ? this.deps.table.turn(t.key, reachable.length) : 0];
    if (ak && pick) this.affinities.set(ak, { ip: pick.e.ip, at: now });
    return pick;
  }

  /** The node of a client pod this process runs (its Local policy), else this kube-proxy's. */
  private nodeOf(client: ClientPod): string | undefined {
    return this.deps.findPod(client.namespace, client.name)?.current.spec.nodeName ?? this.deps.nodeName;
  }

  /** A connection to the pod at ip:port if this process runs it (the pod network's far end), counted for the pod. */
  connectLocal(ip: string, port: number): Duplex | undefined {
    const e = this.deps.table.endpointByIP(ip);
    const w = e?.namespace && e.pod ? this.deps.findPod(e.namespace, e.pod) : undefined;
    if (!e || !w || w.current.status?.podIP !== ip) return undefined;
    return this.connectCounted(w, e.namespace ?? '', e.pod ?? '', port);
  }

  /** A connection to a pod this process runs, counted for the container that listens on the port. */
  private connectCounted(w: LoggedPod, namespace: string, pod: string, port: number): Duplex | undefined {
    const view = serverView(w, this.deps.clock);
    const conn = connectPod(view, port);
    if (conn) this.deps.traffic.add(namespace, pod, podListeners(view).get(port)?.container ?? '', this.deps.clock.now());
    return conn;
  }

  /** The Service port whose nodePort is `nodePort`, as a target for a client at `client` (its ready endpoints, this node's under externalTrafficPolicy Local), or undefined. */
  nodePortTarget(nodePort: number, client?: string): Target | undefined {
    const t = this.deps.table;
    for (const s of t.allServices()) {
      const sp = s.spec?.ports?.find((p) => p.nodePort === nodePort && (p.protocol ?? 'TCP') === 'TCP');
      if (!sp) continue;
      const eps = t.readyEndpoints(s, sp);
      const allowed = s.spec?.externalTrafficPolicy === 'Local' ? localOnly(eps, this.deps.nodeName) : { endpoints: eps };
      return { address: '', key: `${s.metadata.namespace}/${s.metadata.name}:${sp.port}`, ...allowed, ...affinityOf(s, client) };
    }
    return undefined;
  }

  /** Sends the exchange to one reachable endpoint of the target, or reports the connection refused. */
  async exchange(t: Target, req: HttpExchange, signal?: AbortSignal): Promise<HttpOutcome> {
    const conn = await this.connect(t).catch(() => undefined);
    if (!conn) return { kind: 'error', error: 'refused', address: t.address };
    return new Promise<HttpOutcome>((resolve, reject) => {
      const out = http.request({ method: req.method, path: req.path, headers: req.headers, createConnection: () => conn as never, ...(signal ? { signal } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          conn.destroy();
          const headers: [string, string][] = [];
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '']);
          resolve({ kind: 'response', address: t.address, status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', httpVersion: res.httpVersion, headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      out.on('error', (e) => (signal?.aborted ? reject(e) : resolve({ kind: 'error', error: 'refused', address: t.address })));
      out.end(req.body);
    });
  }
}

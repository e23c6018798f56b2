// The cluster network as a pod's emulated shell reaches it (shell/network.ts): a destination is resolved as
// CoreDNS and kube-proxy would (service-table.ts), one ready endpoint is chosen, and the exchange goes to that
// pod's emulated server: over an in-memory connection (servers/pod-servers.ts) when this kubelet process runs
// the pod, else through the pod network to the process that does (pod-network.ts).
import http from 'node:http';
import type { Duplex } from 'node:stream';
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
}

/** Where a client stands: its namespace (for DNS search), and its own pod (localhost and its IP reach it). */
export interface ClientPod {
  namespace: string;
  name: string;
  ip?: string;
}

export type Target = { address: string; endpoints: EndpointTarget[]; key: string };

export class ClusterNetwork {
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
    return { address: d.address, endpoints: eps, key: `${d.service.metadata.namespace}/${d.service.metadata.name}:${port}` };
  }

  async request(client: ClientPod, req: HttpExchange, signal?: AbortSignal): Promise<HttpOutcome> {
    const t = this.target(client, req.host, req.port);
    if ('error' in t) return t.error === 'unknown-host' ? { kind: 'error', error: 'unknown-host' } : { kind: 'error', error: 'refused', address: t.address };
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
    const pick = reachable.length ? reachable[t.key ? this.deps.table.turn(t.key, reachable.length) : 0] : undefined;
    if (!pick) return undefined;
    if (!pick.w) return remote && pick.e.nodeName ? remote({ ...pick.e, nodeName: pick.e.nodeName }) : undefined;
    return this.connectCounted(pick.w, pick.e.namespace ?? '', pick.e.pod ?? '', pick.e.port);
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

  /** The Service port whose nodePort is `nodePort`, as a target (its ready endpoints), or undefined. */
  nodePortTarget(nodePort: number): Target | undefined {
    const t = this.deps.table;
    for (const s of t.allServices()) {
      const sp = s.spec?.ports?.find((p) => p.nodePort === nodePort && (p.protocol ?? 'TCP') === 'TCP');
      if (sp) return { address: '', endpoints: t.readyEndpoints(s, sp), key: `${s.metadata.namespace}/${s.metadata.name}:${sp.port}` };
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

// What kube-proxy knows: the Services and EndpointSlices it watched, read as its iptables rules read them. A
// destination (a ClusterIP or a name CoreDNS answers) maps to a Service port, and that to the ready endpoints of
// the Service's slices for the port of the same name, taken in turn (round-robin: iptables mode picks at random
// with equal weights, which traffic sees the same way over many requests).
import type { EndpointSlice, Service, ServicePort } from '@kemu/api';

/** The cluster domain and the search path of a pod's /etc/resolv.conf (dnsPolicy ClusterFirst). */
export const CLUSTER_DOMAIN = 'cluster.local';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface EndpointTarget {
  ip: string;
  port: number;
  namespace?: string;
  pod?: string;
  nodeName?: string;
}

export type Destination =
  /** A Service's virtual IP: connections are balanced over its endpoints. */
  | { kind: 'service'; address: string; service: Service }
  /** A headless Service's name: CoreDNS answers one endpoint's address, dialled directly. */
  | { kind: 'endpoint'; address: string; endpoint: Omit<EndpointTarget, 'port'> };

function key(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? 'default'}/${name ?? ''}`;
}

export function searchPath(namespace: string): string[] {
  return [`${namespace}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN];
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export class ServiceTable {
  private readonly services = new Map<string, Service>();
  private readonly byClusterIP = new Map<string, string>();
  /** Slices by their Service's key, then by slice name. */
  private readonly slices = new Map<string, Map<string, EndpointSlice>>();
  private readonly turns = new Map<string, number>();
  /** Told after any Service changed (NodePort listeners follow the Services). */
  onServicesChanged: (() => void) | undefined;

  upsertService(s: Service): void {
    const k = key(s.metadata.namespace, s.metadata.name);
    this.deleteService(s);
    this.services.set(k, s);
    for (const ip of this.clusterIPs(s)) this.byClusterIP.set(ip, k);
    this.onServicesChanged?.();
  }

  deleteService(s: Service): void {
    const k = key(s.metadata.namespace, s.metadata.name);
    const old = this.services.get(k);
    if (old) for (const ip of this.clusterIPs(old)) if (this.byClusterIP.get(ip) === k) this.byClusterIP.delete(ip);
    if (this.services.delete(k)) this.onServicesChanged?.();
  }

  /** Drops the Services a re-list no longer has. */
  keepServices(present: Set<string>): void {
    for (const s of [...this.services.values()]) if (!present.has(key(s.metadata.namespace, s.metadata.name))) this.deleteService(s);
  }

  upsertSlice(sl: EndpointSlice): void {
    this.deleteSlice(sl);
    const owner = sl.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!owner) return;
    const k = key(sl.metadata.namespace, owner);
    let m = this.slices.get(k);
    if (!m) this.slices.set(k, (m = new Map()));
    m.set(sl.metadata.name ?? '', sl);
  }

  deleteSlice(sl: EndpointSlice): void {
    for (const [k, m] of this.slices) {
      const found = m.get(sl.metadata.name ?? '');
      if (found && found.metadata.namespace === sl.metadata.namespace) {
        m.delete(sl.metadata.name ?? '');
        if (m.size === 0) this.slices.delete(k);
      }
    }
  }

  keepSlices(present: Set<string>): void {
    for (const m of this.slices.values()) for (const sl of [...m.values()]) if (!present.has(key(sl.metadata.namespace, sl.metadata.name))) this.deleteSlice(sl);
  }

  /** Every Service (for NodePorts). */
  allServices(): Service[] {
    return [...this.services.values()];
  }

  private clusterIPs(s: Service): string[] {
    const ips = s.spec?.clusterIPs?.length ? s.spec.clusterIPs : s.spec?.clusterIP ? [s.spec.clusterIP] : [];
    return ips.filter((ip) => ip !== 'None' && ip !== '');
  }

  /** A host as written in a URL, from a pod in `namespace`: an IP, or a name looked up as CoreDNS would. */
  resolve(host: string, namespace: string): Destination | undefined {
    const h = host.toLowerCase().replace(/\.$/, '');
    if (IPV4.test(h) || h.includes(':')) {
      const k = this.byClusterIP.get(h);
      const s = k ? this.services.get(k) : undefined;
      return s ? { kind: 'service', address: h, service: s } : undefined;
    }
    // ndots:5 — a name with fewer dots is tried with each search domain first, then as it is.
    const candidates = host.endsWith('.') ? [h] : [...searchPath(namespace).map((d) => `${h}.${d}`), h];
    for (const fqdn of candidates) {
      const m = new RegExp(`^([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc\\.${CLUSTER_DOMAIN.replace('.', '\\.')}$`).exec(fqdn);
      if (!m) continue;
      const s = this.services.get(key(m[2], m[1]));
      if (!s || s.spec?.type === 'ExternalName') continue;
      const ip = this.clusterIPs(s)[0];
      if (ip) return { kind: 'service', address: ip, service: s };
      // Headless: CoreDNS answers the ready endpoints' addresses.
      const eps = this.readyEndpoints(s, undefined);
      const pick = eps.length ? eps[this.turn(`dns/${key(s.metadata.namespace, s.metadata.name)}`, eps.length)] : undefined;
      if (!pick) continue;
      const { port: _port, ...endpoint } = pick;
      return { kind: 'endpoint', address: pick.ip, endpoint };
    }
    return undefined;
  }

  /** The Service's port for `port`, or undefined (nothing on that port of the virtual IP). */
  servicePort(s: Service, port: number): ServicePort | undefined {
    return s.spec?.ports?.find((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP');
  }

  /** Ready endpoints of the Service (for `sp`: with the slice port of its name; without: any, port 0). */
  readyEndpoints(s: Service, sp: ServicePort | undefined): EndpointTarget[] {
    const out: EndpointTarget[] = [];
    const seen = new Set<string>();
    for (const sl of this.slices.get(key(s.metadata.namespace, s.metadata.name))?.values() ?? []) {
      let port = 0;
      if (sp) {
        const p = (sl.ports ?? []).find((x) => (x.name ?? '') === (sp.name ?? ''));
        if (!p?.port) continue;
        port = p.port;
      }
      for (const e of sl.endpoints ?? []) {
        // A nil ready condition means ready; publishNotReadyAddresses slices mark every endpoint ready.
        if (e.conditions?.ready === false) continue;
        const ip = e.addresses[0];
        if (!ip || seen.has(ip)) continue;
        seen.add(ip);
        out.push({
          ip,
          port,
          ...(e.targetRef?.kind === 'Pod' ? { namespace: e.targetRef.namespace ?? sl.metadata.namespace, pod: e.targetRef.name } : {}),
          ...(e.nodeName ? { nodeName: e.nodeName } : {}),
        });
      }
    }
    return out;
  }

  /** The next of `n` choices for `k`, in turn. */
  turn(k: string, n: number): number {
    const t = this.turns.get(k) ?? 0;
    this.turns.set(k, (t + 1) % 1_000_000);
    return t % n;
  }

  /** A pod IP one of the slices names, as an endpoint to dial directly. */
  endpointByIP(ip: string): Omit<EndpointTarget, 'port'> | undefined {
    for (const m of this.slices.values())
      for (const sl of m.values())
        for (const e of sl.endpoints ?? [])
          if (e.addresses.includes(ip) && e.targetRef?.kind === 'Pod') return { ip, namespace: e.targetRef.namespace ?? sl.metadata.namespace, pod: e.targetRef.name, ...(e.nodeName ? { nodeName: e.nodeName } : {}) };
    return undefined;
  }
}

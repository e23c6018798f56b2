// The default/kubernetes Endpoints and EndpointSlice, kept by the apiservers themselves as Kubernetes'
// lease endpoint reconciler does (--endpoint-reconciler-type=lease): every replica publishes its
// advertise address and secure port on its identity Lease; on each pass a replica lists the identity
// Leases, keeps those renewed within the reconciler TTL (15 s, Kubernetes' DefaultEndpointReconcilerTTL,
// or the lease's own duration if shorter), and writes the objects when they differ. Every replica writes
// the same desired state computed from the same Leases, and each write is a conflict-retried update, so
// three replicas racing converge; a replica that stops renewing drops out once its Lease goes stale.
import { parseTime, R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import { parseIP } from '@kemu/base';
import type { Clock } from '../clock.ts';
import type { Registry } from '../registry/registry.ts';
import { decodeObject, resourcePrefix } from '../storage.ts';
import { IDENTITY_LABEL } from './identity-lease.ts';

/** On an identity Lease: "<ip>:<port>" where this replica serves (kemu's stand-in for Kubernetes' master leases). */
export const ENDPOINT_ANNOTATION = 'apiserver.kemu.io/endpoint';
export const DEFAULT_ENDPOINT_RECONCILER_TTL_MS = 15_000;
const SERVICE = 'kubernetes';
const NAMESPACE = 'default';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface ApiEndpoint {
  ip: string;
  port: number;
}

export function formatEndpoint(e: ApiEndpoint): string {
  return `${e.ip}:${e.port}`;
}

export function parseEndpoint(s: unknown): ApiEndpoint | undefined {
  if (typeof s !== 'string') return undefined;
  const m = /^(\d+\.\d+\.\d+\.\d+):(\d{1,5})$/.exec(s);
  if (!m || parseIP(m[1] as string)?.family !== 'IPv4') return undefined;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535 ? { ip: m[1] as string, port } : undefined;
}

/** The live replicas' endpoints from the identity Leases (self always included). */
export function liveEndpoints(leases: KubeObject[], now: number, ttlMs: number, self: ApiEndpoint): ApiEndpoint[] {
  const seen = new Map<string, ApiEndpoint>([[formatEndpoint(self), self]]);
  for (const l of leases) {
    if (l.metadata.labels?.[IDENTITY_LABEL] !== 'kube-apiserver') continue;
    const ep = parseEndpoint(l.metadata.annotations?.[ENDPOINT_ANNOTATION]);
    if (!ep) continue;
    const spec = (l.spec ?? {}) as { renewTime?: unknown; leaseDurationSeconds?: unknown };
    const renewed = parseTime(typeof spec.renewTime === 'string' ? spec.renewTime : undefined);
    const durMs = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : ttlMs;
    if (!Number.isFinite(renewed) || now >= renewed + Math.min(durMs, ttlMs)) continue;
    seen.set(formatEndpoint(ep), ep);
  }
  return [...seen.values()];
}

const ipValue = (ip: string): bigint => parseIP(ip)?.value ?? 0n;
const byIP = (a: string, b: string) => (ipValue(a) < ipValue(b) ? -1 : ipValue(a) > ipValue(b) ? 1 : 0);

/** Addresses grouped by port, ports ascending, addresses in numeric order. */
function groups(eps: ApiEndpoint[]): { port: number; ips: string[] }[] {
  const m = new Map<number, Set<string>>();
  for (const e of eps) {
    let s = m.get(e.port);
    if (!s) m.set(e.port, (s = new Set()));
    s.add(e.ip);
  }
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([port, ips]) => ({ port, ips: [...ips].sort(byIP) }));
}

const httpsPort = (port: number) => ({ name: 'https', port, protocol: 'TCP' });

export function desiredSubsets(eps: ApiEndpoint[]): unknown[] {
  return groups(eps).map((g) => ({ addresses: g.ips.map((ip) => ({ ip })), ports: [httpsPort(g.port)] }));
}

/**
 * One EndpointSlice per port (a slice has one port list): "kubernetes" for the largest group (the only
 * one when replicas share a port, as in containers), "kubernetes-<port>" for replicas on other ports.
 */
export function desiredSlices(eps: ApiEndpoint[]): Map<string, { endpoints: unknown[]; ports: unknown[] }> {
  const gs = groups(eps).sort((a, b) => b.ips.length - a.ips.length || a.port - b.port);
  const out = new Map<string, { endpoints: unknown[]; ports: unknown[] }>();
  gs.forEach((g, i) => {
    out.set(i === 0 ? SERVICE : `${SERVICE}-${g.port}`, {
      endpoints: g.ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [httpsPort(g.port)],
    });
  });
  return out;
}

export interface EndpointReconcilerOptions {
  registry: Registry;
  clock: Clock;
  logger: Logger;
  self: ApiEndpoint;
  intervalMs: number;
  ttlMs?: number;
}

export interface EndpointReconciler {
  reconcile(): Promise<void>;
  stop(): void;
}

export function startEndpointReconciler(o: EndpointReconcilerOptions): EndpointReconciler {
  const ttl = o.ttlMs ?? DEFAULT_ENDPOINT_RECONCILER_TTL_MS;
  let running: Promise<void> | undefined;
  const pass = async () => {
    const leases = (await o.registry.backend.list(resourcePrefix(R.leases, 'kube-system'))).items.map((kv) => decodeObject(kv));
    const eps = liveEndpoints(leases, o.clock.now(), ttl, o.self);
    await writeEndpoints(o.registry, eps);
    await writeSlices(o.registry, eps);
  };
  const reconcile = () => {
    // One pass at a time per replica; a tick during a slow pass joins it.
    running ??= pass().finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => {
    reconcile().catch((e: unknown) => o.logger.warn({ err: String(e) }, 'reconciling default/kubernetes endpoints failed'));
  }, o.intervalMs);
  timer.unref();
  return { reconcile, stop: () => clearInterval(timer) };
}

/** Update (conflicts retried by the registry) or create; a create that loses a race becomes an update. */
async function upsert(registry: Registry, r: typeof R.endpoints, name: string, fresh: KubeObject, apply: (cur: KubeObject) => void): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await registry.guaranteedUpdate(r, NAMESPACE, name, (cur) => {
        apply(cur);
        return cur;
      });
      return;
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
    }
    try {
      await registry.create(r, structuredClone(fresh));
      return;
    } catch (e) {
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists')) throw e;
    }
  }
}

async function writeEndpoints(registry: Registry, eps: ApiEndpoint[]): Promise<void> {
  const subsets = desiredSubsets(eps);
  const labels = { 'endpointslice.kubernetes.io/skip-mirror': 'true' };
  const fresh: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: SERVICE, namespace: NAMESPACE, labels }, subsets };
  await upsert(registry, R.endpoints, SERVICE, fresh, (cur) => {
    cur.metadata.labels = { ...(cur.metadata.labels ?? {}), ...labels };
    (cur as { subsets?: unknown }).subsets = subsets;
  });
}

async function writeSlices(registry: Registry, eps: ApiEndpoint[]): Promise<void> {
  const want = desiredSlices(eps);
  const labels = { [SERVICE_NAME_LABEL]: SERVICE };
  for (const [name, s] of want) {
    const fresh: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name, namespace: NAMESPACE, labels },
      addressType: 'IPv4',
      endpoints: s.endpoints,
      ports: s.ports,
    } as KubeObject;
    await upsert(registry, R.endpointslices, name, fresh, (cur) => {
      const c = cur as Record<string, unknown>;
      cur.metadata.labels = { ...(cur.metadata.labels ?? {}), ...labels };
      c.addressType = 'IPv4';
      c.endpoints = s.endpoints;
      c.ports = s.ports;
    });
  }
  // Slices for a port no live replica serves any more.
  const existing = await registry.backend.list(resourcePrefix(R.endpointslices, NAMESPACE));
  for (const kv of existing.items) {
    const obj = decodeObject(kv);
    const name = obj.metadata.name ?? '';
    if (want.has(name) || !/^kubernetes-\d+$/.test(name) || obj.metadata.labels?.[SERVICE_NAME_LABEL] !== SERVICE) continue;
    try {
      await registry.delete(R.endpointslices, NAMESPACE, name, { preconditions: { resourceVersion: String(kv.modRevision) }, plan: () => ({ kind: 'delete' }) });
    } catch (e) {
      if (!(e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) throw e;
    }
  }
}

// k8s.io/apiserver's ResolveEndpoint: a Service port, then one ready address of the Service's Endpoints on
// that port's name (else of its EndpointSlices), so the apiserver reaches a backend by its endpoints rather than
// its cluster IP (what --enable-aggregator-routing=true does; a selector-less Service with Endpoints on a host
// address reaches a server the user runs outside the cluster). Shared by admission webhooks, conversion
// webhooks and the aggregator; errors read as Kubernetes' and Go's net/http.
import { R, type KubeObject, type ResourceInfo } from '@kemu/api';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Objects of a resource in a namespace (the watch cache, or the store). */
export type ListObjects = (r: ResourceInfo, namespace: string) => Promise<KubeObject[] | undefined>;

export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

/** Throws an Error with Kubernetes' words when the Service, its port or a ready endpoint is missing. */
export async function resolveServiceEndpoint(ref: ServiceRef, list: ListObjects): Promise<{ host: string; port: number }> {
  const { namespace: ns, name, port } = ref;
  const find = async (r: ResourceInfo): Promise<KubeObject | undefined> => (await list(r, ns))?.find((o) => o.metadata.name === name);
  const svc = await find(R.services);
  if (!svc) throw new Error(`service "${name}" not found`);
  const spec = isObj(svc.spec) ? svc.spec : {};
  if (spec.type === 'ExternalName') throw new Error(`unsupported service type "ExternalName"`);
  const svcPort = (Array.isArray(spec.ports) ? spec.ports : []).find((p): p is Obj => isObj(p) && p.port === port);
  if (!svcPort) throw new Error(`no service port ${port} found for service "${name}"`);
  const portName = str(svcPort.name) ?? '';
  const ep = await find(R.endpoints);
  for (const subset of Array.isArray(ep?.subsets) ? ep.subsets : []) {
    if (!isObj(subset)) continue;
    const p = (Array.isArray(subset.ports) ? subset.ports : []).find((x): x is Obj => isObj(x) && (str(x.name) ?? '') === portName);
    const addrs = (Array.isArray(subset.addresses) ? subset.addresses : []).filter(isObj);
    if (!p || typeof p.port !== 'number' || addrs.length === 0) continue;
    const a = addrs[Math.floor(Math.random() * addrs.length)];
    const ip = str(a?.ip);
    if (ip) return { host: ip, port: p.port };
  }
  // A Service whose endpoints are published only as EndpointSlices (kubernetes.io/service-name).
  const slices = ((await list(R.endpointslices, ns)) ?? []).filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name);
  for (const slice of slices) {
    const p = (Array.isArray(slice.ports) ? slice.ports : []).find((x): x is Obj => isObj(x) && (str(x.name) ?? '') === portName);
    if (!p || typeof p.port !== 'number') continue;
    const ready = (Array.isArray(slice.endpoints) ? slice.endpoints : []).filter(isObj).filter((e) => !isObj(e.conditions) || e.conditions.ready !== false);
    const ips = ready.flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.filter((a): a is string => typeof a === 'string') : []));
    const ip = ips[Math.floor(Math.random() * ips.length)];
    if (ip) return { host: ip, port: p.port };
  }
  throw new Error(`no endpoints available for service "${name}"`);
}

/** Go's wording for the connection and TLS errors Node reports. */
export function goNetError(e: NodeJS.ErrnoException, t: { host: string; port: number; servername: string }): string {
  const addr = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${t.servername}`;
    default:
      return e.message;
  }
}

// Where the aggregator sends a request for an APIService's Service (--enable-aggregator-routing). Off, the
// default, Kubernetes dials the Service's cluster IP and port (ResolveCluster): a headless Service cannot be
// routed to, an ExternalName one is dialled by name, and kube-proxy takes the connection on to an endpoint. kemu
// has no routable cluster IPs, so it does what kube-proxy would (an endpoint on the port's target, through the
// Service's endpoints; none: the connection is refused) while every message names the cluster IP. On, the
// request goes to one ready endpoint (ResolveEndpoint, service-endpoint.ts) and messages name it.
import { R } from '@kemu/api';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { resolveServiceEndpoint, type ListObjects, type ServiceRef } from '../service-endpoint.ts';

export interface HostPort {
  host: string;
  port: number;
}

export interface Backend {
  /** The address Kubernetes dials, named in URLs and errors. */
  shown: HostPort;
  /** Where kemu connects; absent: nothing behind the cluster IP, the connection is refused. */
  dial?: HostPort;
}

export function joinHostPort({ host, port }: HostPort): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Go's error for a refused dial (goNetError words it "dial tcp <addr>: connect: connection refused"). */
export function connectionRefused(): NodeJS.ErrnoException {
  return Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
}

/** Throws an Error with Kubernetes' words when the Service cannot be routed to. */
export async function resolveBackend(ref: ServiceRef, list: ListObjects, routeToEndpoints: boolean): Promise<Backend> {
  if (routeToEndpoints) {
    const ep = await resolveServiceEndpoint(ref, list);
    return { shown: ep, dial: ep };
  }
  const svc = (await list(R.services, ref.namespace))?.find((o) => o.metadata.name === ref.name);
  if (!svc) throw new Error(`service "${ref.name}" not found`);
  const spec = asRecord(svc.spec) ?? {};
  const type = asString(spec.type) ?? 'ClusterIP';
  const clusterIP = asString(spec.clusterIP) ?? '';
  if (type === 'ExternalName') {
    const shown = { host: asString(spec.externalName) ?? '', port: ref.port };
    return { shown, dial: shown };
  }
  if (type === 'ClusterIP' && clusterIP === 'None') throw new Error('cannot route to service with ClusterIP "None"');
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new Error(`unsupported service type "${type}"`);
  const port = (asArray(spec.ports) ?? []).filter(isRecord).find((p) => p.port === ref.port);
  if (!port) throw new Error(`no service port ${ref.port} found for service "${ref.name}"`);
  const shown = { host: clusterIP, port: ref.port };
  const dial = await resolveServiceEndpoint(ref, list).catch(() => undefined);
  return dial ? { shown, dial } : { shown };
}

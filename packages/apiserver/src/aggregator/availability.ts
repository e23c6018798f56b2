// The Available condition of an APIService, as kube-aggregator's availability controllers decide it: a local
// APIService is always available (Local); a remote one needs its Service (ServiceNotFound), the port
// (ServicePortError), endpoints with an address on that port's name (EndpointsNotFound, MissingEndpoints),
// and a 2xx to GET /apis/<group>/<version> from one endpoint within 5 s, sent as system:kube-aggregator in
// system:masters without verifying the server (FailedDiscoveryCheck with Go's error text), else Passed.
import { R, type KubeObject } from '@kemu/api';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { goNetError, type ListObjects } from '../service-endpoint.ts';
import { connectionRefused, joinHostPort, resolveBackend, type HostPort } from './routing.ts';
import { authProxyHeaders, backendRequest, serviceRefOf, type ProxyClientIdentity } from './transport.ts';

export interface Availability {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** The APIResourceList the server answered the discovery check with (JSON), when it did. */
  discovery?: unknown;
}

const DISCOVERY_TIMEOUT_MS = 5000;

export const LOCAL_AVAILABLE: Availability = { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function hasAddressOnPort(ep: KubeObject, portName: string): boolean {
  return (asArray(ep.subsets) ?? []).filter(isRecord).some((s) => (asArray(s.addresses) ?? []).length > 0 && (asArray(s.ports) ?? []).filter(isRecord).some((p) => str(p.name) === portName));
}

function sliceHasAddressOnPort(slice: KubeObject, portName: string): boolean {
  const ready = (asArray(slice.endpoints) ?? []).filter(isRecord).some((e) => asRecord(e.conditions)?.ready !== false && (asArray(e.addresses) ?? []).length > 0);
  return ready && (asArray(slice.ports) ?? []).filter(isRecord).some((p) => str(p.name) === portName && typeof p.port === 'number');
}

/** GET the discovery path from one endpoint; resolves to the parsed body, rejects with Kubernetes' message. */
function discoveryGet(url: string, shown: HostPort & { servername: string }, dial: HostPort | undefined, id: ProxyClientIdentity, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const fail = (msg: string) => reject(new Error(`failing or missing response from ${url}: ${msg}`));
    if (!dial) return fail(`Get "${url}": ${goNetError(connectionRefused(), shown)}`);
    const req = backendRequest({ ...dial, servername: shown.servername, insecure: true }, id, {
      method: 'GET',
      path,
      headers: { accept: 'application/json', ...authProxyHeaders({ username: 'system:kube-aggregator', groups: ['system:masters'] }) },
      timeoutMs: DISCOVERY_TIMEOUT_MS,
    });
    const deadline = setTimeout(() => {
      req.destroy();
      reject(new Error(`timed out waiting for ${url}`));
    }, DISCOVERY_TIMEOUT_MS + 1000);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => fail(`Get "${url}": ${goNetError(e, shown)}`));
      res.on('end', () => {
        clearTimeout(deadline);
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) return fail(`bad status from ${url}: ${code}`);
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on('timeout', () => {
      req.destroy();
      fail(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
    });
    req.on('error', (e) => {
      clearTimeout(deadline);
      fail(`Get "${url}": ${goNetError(e, shown)}`);
    });
    req.end();
  });
}

export async function checkAvailability(apiService: KubeObject, list: ListObjects, id: ProxyClientIdentity, routeToEndpoints: boolean): Promise<Availability> {
  const ref = serviceRefOf(apiService);
  if (!ref) return LOCAL_AVAILABLE;
  const at = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
  const svc = (await list(R.services, ref.namespace))?.find((o) => o.metadata.name === ref.name);
  if (!svc) return { status: 'False', reason: 'ServiceNotFound', message: `${at} is not present` };
  const spec = asRecord(svc.spec) ?? {};
  if ((asString(spec.type) ?? 'ClusterIP') === 'ClusterIP') {
    const port = (asArray(spec.ports) ?? []).filter(isRecord).find((p) => p.port === ref.port);
    if (!port) return { status: 'False', reason: 'ServicePortError', message: `${at} is not listening on port ${ref.port}` };
    const portName = str(port.name);
    const ep = (await list(R.endpoints, ref.namespace))?.find((o) => o.metadata.name === ref.name);
    const slices = ((await list(R.endpointslices, ref.namespace)) ?? []).filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === ref.name);
    if (!ep && slices.length === 0) return { status: 'False', reason: 'EndpointsNotFound', message: `cannot find endpoints for ${at}` };
    if (!(ep && hasAddressOnPort(ep, portName)) && !slices.some((s) => sliceHasAddressOnPort(s, portName)))
      return { status: 'False', reason: 'MissingEndpoints', message: `endpoints for ${at} have no addresses with port name ${JSON.stringify(portName)}` };
  }
  const spec2 = asRecord(apiService.spec) ?? {};
  const path = apiService.metadata.name === 'v1.' ? `/api/${str(spec2.version)}` : `/apis/${str(spec2.group)}/${str(spec2.version)}`;
  try {
    const b = await resolveBackend(ref, list, routeToEndpoints);
    const url = `https://${joinHostPort(b.shown)}${path}`;
    const discovery = await discoveryGet(url, { ...b.shown, servername: `${ref.name}.${ref.namespace}.svc` }, b.dial, id, path);
    return { status: 'True', reason: 'Passed', message: 'all checks passed', discovery };
  } catch (e) {
    return { status: 'False', reason: 'FailedDiscoveryCheck', message: e instanceof Error ? e.message : String(e) };
  }
}

/** The APIService's status with `a` as its Available condition (the transition time kept when the status is unchanged). */
export function withAvailability(apiService: KubeObject, a: Availability, now: string): Record<string, unknown> {
  const status = { ...(asRecord(apiService.status) ?? {}) };
  const conditions = (asArray(status.conditions) ?? []).filter(isRecord);
  const prev = conditions.find((c) => c.type === 'Available');
  const next = { type: 'Available', status: a.status, lastTransitionTime: prev && prev.status === a.status ? prev.lastTransitionTime : now, reason: a.reason, message: a.message };
  status.conditions = [...conditions.filter((c) => c.type !== 'Available'), next];
  return status;
}

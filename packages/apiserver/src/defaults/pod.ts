// Pod defaulting (pkg/apis/core/v1/defaults.go: SetDefaults_Pod, _PodSpec, _Container, _Probe, _Volume ...)
// and the QoS class the pod strategy records on create.
import { tryParseQuantity } from '@kemu/api';
import { ensureObj, isObj, objects, setDefault } from './util.ts';
import type { Obj } from './util.ts';

/** Always for ":latest" or an untagged image (unless pinned by digest), else IfNotPresent. */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const tail = image.slice(lastSlash + 1);
  const colon = tail.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return tail.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  if (isObj(p.httpGet)) {
    setDefault(p.httpGet, 'path', '/');
    setDefault(p.httpGet, 'scheme', 'HTTP');
  }
  if (isObj(p.grpc)) setDefault(p.grpc, 'service', '');
}

export function defaultContainer(c: Obj, hostNetwork: boolean): void {
  setDefault(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const p of objects(c.ports)) {
    setDefault(p, 'protocol', 'TCP');
    if (hostNetwork && (p.hostPort === undefined || p.hostPort === 0)) p.hostPort = p.containerPort;
  }
  for (const e of objects(c.env)) {
    if (isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) setDefault(e.valueFrom.fieldRef, 'apiVersion', 'v1');
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (c.resources === undefined || c.resources === null) c.resources = {};
  // Limits without requests: requests default to the limits (SetDefaults_Pod).
  if (isObj(c.resources) && isObj(c.resources.limits) && Object.keys(c.resources.limits).length > 0) {
    const req = ensureObj(c.resources, 'requests');
    for (const [k, v] of Object.entries(c.resources.limits)) if (req[k] === undefined) req[k] = v;
  }
}

function defaultVolume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const k of ['configMap', 'secret', 'downwardAPI', 'projected']) {
    const src = v[k];
    if (isObj(src)) setDefault(src, 'defaultMode', 420);
  }
}

export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'schedulerName', 'default-scheduler');
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  // The deprecated serviceAccount field mirrors serviceAccountName.
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') setDefault(spec, 'serviceAccount', spec.serviceAccountName);
  else if (typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '') spec.serviceAccountName = spec.serviceAccount;
  const hostNetwork = spec.hostNetwork === true;
  for (const f of ['containers', 'initContainers', 'ephemeralContainers']) for (const c of objects(spec[f])) defaultContainer(c, hostNetwork);
  for (const v of objects(spec.volumes)) defaultVolume(v);
}

/** SetDefaults_Pod: pod spec defaults plus enableServiceLinks. */
export function defaultPod(pod: Obj): void {
  const spec = ensureObj(pod, 'spec');
  defaultPodSpec(spec);
  setDefault(spec, 'enableServiceLinks', true);
}

/** Pod-template defaults (Deployment/ReplicaSet templates): PodSpec defaults only (no enableServiceLinks, as in Kubernetes). */
export function defaultPodTemplate(template: Obj): void {
  defaultPodSpec(ensureObj(template, 'spec'));
}

/** qos.GetPodQOS: Guaranteed, Burstable or BestEffort from cpu/memory requests and limits. */
export function podQOSClass(spec: unknown): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const s = isObj(spec) ? spec : {};
  for (const c of [...objects(s.containers), ...objects(s.initContainers)]) {
    const res = isObj(c.resources) ? c.resources : {};
    const req = isObj(res.requests) ? res.requests : {};
    const lim = isObj(res.limits) ? res.limits : {};
    for (const name of ['cpu', 'memory']) {
      const r = tryParseQuantity(req[name]);
      if (r !== undefined && r !== 0) requests.set(name, (requests.get(name) ?? 0) + r);
      const l = tryParseQuantity(lim[name]);
      if (l !== undefined && l !== 0) limits.set(name, (limits.get(name) ?? 0) + l);
    }
    const limCount = ['cpu', 'memory'].filter((n) => {
      const l = tryParseQuantity(lim[n]);
      return l !== undefined && l !== 0;
    }).length;
    if (limCount !== 2) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, r] of requests) if (limits.get(name) !== r) return 'Burstable';
    if (limits.size === 2) return 'Guaranteed';
  }
  return 'Burstable';
}

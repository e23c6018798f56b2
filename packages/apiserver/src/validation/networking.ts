// Validation of Ingresses, IngressClasses, NetworkPolicies (pkg/apis/networking/validation) and RuntimeClasses
// (pkg/apis/node/validation): stored objects with Kubernetes' messages; kemu has no data plane for them.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validateLabelSelector } from './apps.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '@kemu/api';
import { validateResourceList } from './resources.ts';
import { validateTolerations } from './pod.ts';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateBackend(b: unknown, path: string, out: StatusCause[]): void {
  if (!isRecord(b)) return;
  const svc = isRecord(b.service) ? b.service : undefined;
  if (svc && b.resource != null) out.push(fieldErrors.invalid(path, '', 'cannot set both resource and service backends'));
  else if (!svc && b.resource == null) out.push(fieldErrors.invalid(path, '', 'one of `resource` or `service` must be specified'));
  if (!svc) return;
  if (typeof svc.name !== 'string' || svc.name === '') out.push(fieldErrors.required(child(path, 'service', 'name')));
  const port = isRecord(svc.port) ? svc.port : {};
  const hasName = typeof port.name === 'string' && port.name !== '';
  const hasNumber = typeof port.number === 'number' && port.number !== 0;
  if (hasName && hasNumber) out.push(fieldErrors.invalid(child(path, 'service', 'port'), port, 'cannot set both port name & port number'));
  else if (!hasName && !hasNumber) out.push(fieldErrors.invalid(child(path, 'service', 'port'), port, 'port name or number is required'));
}

export function validateIngress(ing: KubeObject): StatusCause[] {
  const out = validateObjectMeta(ing.metadata, { namespaced: true });
  const spec = isRecord(ing.spec) ? ing.spec : {};
  const rules = asArray(spec.rules) ?? [];
  if (spec.defaultBackend == null && rules.length === 0)
    out.push(fieldErrors.invalid('spec.rules', rules, 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend != null) validateBackend(spec.defaultBackend, 'spec.defaultBackend', out);
  if (typeof spec.ingressClassName === 'string') for (const m of isDNS1123Subdomain(spec.ingressClassName)) out.push(fieldErrors.invalid('spec.ingressClassName', spec.ingressClassName, m));
  rules.forEach((r: unknown, i) => {
    if (!isRecord(r)) return;
    const p = index('spec.rules', i);
    const http = isRecord(r.http) ? r.http : undefined;
    if (!http) return;
    const paths = asArray(http.paths) ?? [];
    if (paths.length === 0) out.push(fieldErrors.required(child(p, 'http', 'paths')));
    paths.forEach((hp: unknown, j) => {
      if (!isRecord(hp)) return;
      const pp = index(child(p, 'http', 'paths'), j);
      if (hp.pathType == null || hp.pathType === '') out.push(fieldErrors.required(child(pp, 'pathType'), 'pathType must be specified'));
      else if (!PATH_TYPES.includes(String(hp.pathType))) out.push(fieldErrors.notSupported(child(pp, 'pathType'), hp.pathType, PATH_TYPES));
      else if (hp.pathType !== 'ImplementationSpecific' && !String(hp.path ?? '').startsWith('/'))
        out.push(fieldErrors.invalid(child(pp, 'path'), hp.path ?? '', 'must be an absolute path'));
      validateBackend(hp.backend, child(pp, 'backend'), out);
    });
  });
  return out;
}

export function validateIngressUpdate(ing: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(ing.metadata, old.metadata, { namespaced: true }), ...validateIngress(ing).filter((c) => !c.field?.startsWith('metadata'))];
}

export function validateIngressClass(ic: KubeObject): StatusCause[] {
  const out = validateObjectMeta(ic.metadata, { namespaced: false });
  const spec = isRecord(ic.spec) ? ic.spec : {};
  const ctl = spec.controller;
  if (typeof ctl !== 'string' || ctl === '') out.push(fieldErrors.required('spec.controller'));
  else if (ctl.length > 250) out.push(fieldErrors.tooLong('spec.controller', 250));
  const params = isRecord(spec.parameters) ? spec.parameters : undefined;
  if (params) {
    if (typeof params.kind !== 'string' || params.kind === '') out.push(fieldErrors.required('spec.parameters.kind', 'kind is required'));
    if (typeof params.name !== 'string' || params.name === '') out.push(fieldErrors.required('spec.parameters.name', 'name is required'));
    const scopes = ['Cluster', 'Namespace'];
    if (params.scope != null && !scopes.includes(String(params.scope))) out.push(fieldErrors.notSupported('spec.parameters.scope', params.scope, scopes));
    if (params.scope === 'Namespace' && (params.namespace == null || params.namespace === ''))
      out.push(fieldErrors.required('spec.parameters.namespace', '`parameters.scope` is set to "Namespace"'));
  }
  return out;
}

export function validateIngressClassUpdate(ic: KubeObject, old: KubeObject): StatusCause[] {
  const out = [...validateObjectMetaUpdate(ic.metadata, old.metadata, { namespaced: false }), ...validateIngressClass(ic).filter((c) => !c.field?.startsWith('metadata'))];
  const ctl = isRecord(ic.spec) ? ic.spec.controller : undefined;
  const oldCtl = isRecord(old.spec) ? old.spec.controller : undefined;
  if (ctl !== oldCtl) out.push(fieldErrors.immutable('spec.controller', ctl));
  return out;
}

const POLICY_TYPES = ['Egress', 'Ingress'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validatePeers(peers: unknown, path: string, out: StatusCause[]): void {
  (asArray(peers) ?? []).forEach((peer: unknown, i) => {
    if (!isRecord(peer)) return;
    const p = index(path, i);
    let n = 0;
    if (peer.podSelector != null) {
      n++;
      out.push(...validateLabelSelector(peer.podSelector, child(p, 'podSelector')));
    }
    if (peer.namespaceSelector != null) {
      n++;
      out.push(...validateLabelSelector(peer.namespaceSelector, child(p, 'namespaceSelector')));
    }
    if (peer.ipBlock != null) {
      n++;
      const cidr = isRecord(peer.ipBlock) ? peer.ipBlock.cidr : undefined;
      if (typeof cidr !== 'string' || cidr === '') out.push(fieldErrors.required(child(p, 'ipBlock', 'cidr')));
    }
    if (n === 0) out.push(fieldErrors.required(p, 'must specify a peer'));
    else if (n > 1 && peer.ipBlock != null) out.push(fieldErrors.forbidden(p, 'may not specify more than 1 peer'));
  });
}

function validatePorts(ports: unknown, path: string, out: StatusCause[]): void {
  (asArray(ports) ?? []).forEach((port: unknown, i) => {
    if (!isRecord(port)) return;
    const p = index(path, i);
    if (port.protocol != null && !PROTOCOLS.includes(String(port.protocol))) out.push(fieldErrors.notSupported(child(p, 'protocol'), port.protocol, PROTOCOLS));
    if (typeof port.port === 'number' && (port.port < 1 || port.port > 65535))
      out.push(fieldErrors.invalid(child(p, 'port'), port.port, 'must be between 1 and 65535, inclusive'));
    if (port.endPort != null) {
      if (typeof port.port !== 'number') out.push(fieldErrors.required(child(p, 'port'), 'must specify port when endPort is specified'));
      else if (typeof port.endPort === 'number' && port.endPort < port.port)
        out.push(fieldErrors.invalid(child(p, 'endPort'), port.endPort, 'must be greater than or equal to `port`'));
    }
  });
}

export function validateNetworkPolicy(np: KubeObject): StatusCause[] {
  const out = validateObjectMeta(np.metadata, { namespaced: true });
  const spec = isRecord(np.spec) ? np.spec : {};
  out.push(...validateLabelSelector(spec.podSelector ?? {}, 'spec.podSelector'));
  (asArray(spec.ingress) ?? []).forEach((r: unknown, i) => {
    if (!isRecord(r)) return;
    validatePorts(r.ports, child(index('spec.ingress', i), 'ports'), out);
    validatePeers(r.from, child(index('spec.ingress', i), 'from'), out);
  });
  (asArray(spec.egress) ?? []).forEach((r: unknown, i) => {
    if (!isRecord(r)) return;
    validatePorts(r.ports, child(index('spec.egress', i), 'ports'), out);
    validatePeers(r.to, child(index('spec.egress', i), 'to'), out);
  });
  const types = asArray(spec.policyTypes) ?? [];
  types.forEach((t: unknown, i) => {
    if (!POLICY_TYPES.includes(String(t))) out.push(fieldErrors.notSupported(index('spec.policyTypes', i), t, POLICY_TYPES));
  });
  if (types.length > 2) out.push(fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return out;
}

export function validateNetworkPolicyUpdate(np: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(np.metadata, old.metadata, { namespaced: true }), ...validateNetworkPolicy(np).filter((c) => !c.field?.startsWith('metadata'))];
}

export function validateRuntimeClass(rc: KubeObject): StatusCause[] {
  const out = validateObjectMeta(rc.metadata, { namespaced: false });
  const handler = rc.handler;
  if (typeof handler !== 'string' || handler === '') out.push(fieldErrors.required('handler'));
  else for (const m of isDNS1123Label(handler)) out.push(fieldErrors.invalid('handler', handler, m));
  const overhead = isRecord(rc.overhead) ? rc.overhead : undefined;
  if (overhead) validateResourceList(overhead.podFixed, 'overhead.podFixed', out);
  const sched = isRecord(rc.scheduling) ? rc.scheduling : undefined;
  if (sched) out.push(...validateTolerations(sched.tolerations, 'scheduling.tolerations'));
  return out;
}

export function validateRuntimeClassUpdate(rc: KubeObject, old: KubeObject): StatusCause[] {
  const out = [...validateObjectMetaUpdate(rc.metadata, old.metadata, { namespaced: false }), ...validateRuntimeClass(rc).filter((c) => !c.field?.startsWith('metadata'))];
  if (rc.handler !== old.handler) out.push(fieldErrors.immutable('handler', rc.handler));
  return out;
}

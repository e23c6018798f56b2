// Service validation (ValidateService / ValidateServiceUpdate, the parts kemu's clients meet): ports, type,
// session affinity, cluster IPs, node ports only where the type allows them, clusterIP immutable once set.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord } from './field.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isValidIP, isValidPortName, isValidPortNum } from './names.ts';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { PROTOCOLS } from './pod.ts';

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

function validatePorts(spec: Record<string, unknown>, out: StatusCause[]): void {
  const ports = asArray(spec.ports) ?? [];
  const type = spec.type;
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((p: unknown, i) => {
    const pp = index('spec.ports', i);
    if (!isRecord(p)) {
      out.push(fieldErrors.invalid(pp, p, 'must be an object'));
      return;
    }
    const name = typeof p.name === 'string' ? p.name : '';
    if (ports.length > 1 && name === '') out.push(fieldErrors.required(child(pp, 'name')));
    if (name !== '') {
      for (const m of isDNS1123Label(name)) out.push(fieldErrors.invalid(child(pp, 'name'), name, m));
      if (names.has(name)) out.push(fieldErrors.duplicate(child(pp, 'name'), name));
      names.add(name);
    }
    for (const m of isValidPortNum(p.port)) out.push(fieldErrors.invalid(child(pp, 'port'), p.port ?? 0, m));
    if (p.protocol === undefined || p.protocol === '') out.push(fieldErrors.required(child(pp, 'protocol')));
    else if (!PROTOCOLS.includes(String(p.protocol))) out.push(fieldErrors.notSupported(child(pp, 'protocol'), p.protocol, PROTOCOLS));
    const tp = p.targetPort;
    if (typeof tp === 'number') for (const m of isValidPortNum(tp)) out.push(fieldErrors.invalid(child(pp, 'targetPort'), tp, m));
    else if (typeof tp === 'string' && tp !== '') for (const m of isValidPortName(tp)) out.push(fieldErrors.invalid(child(pp, 'targetPort'), tp, m));
    if (p.nodePort !== undefined && p.nodePort !== null && p.nodePort !== 0) {
      if (type !== 'NodePort' && type !== 'LoadBalancer')
        out.push(fieldErrors.forbidden(child(pp, 'nodePort'), `may not be used when \`type\` is '${String(type)}'`));
      else for (const m of isValidPortNum(p.nodePort)) out.push(fieldErrors.invalid(child(pp, 'nodePort'), p.nodePort, m));
    }
    const k = `${String(p.port)}/${String(p.protocol)}`;
    if (seen.has(k)) out.push(fieldErrors.duplicate(pp, { port: p.port, protocol: p.protocol }));
    seen.add(k);
  });
}

export function validateService(svc: KubeObject): StatusCause[] {
  const out = validateObjectMeta(svc.metadata, { namespaced: true, nameFn: isDNS1035Label });
  if (!isRecord(svc.spec)) return [...out, fieldErrors.required('spec')];
  const spec = svc.spec;
  const type = spec.type;
  if (type === undefined || type === '') out.push(fieldErrors.required('spec.type'));
  else if (!SERVICE_TYPES.includes(String(type))) out.push(fieldErrors.notSupported('spec.type', type, SERVICE_TYPES));
  const headless = spec.clusterIP === 'None';
  if (type === 'ExternalName') {
    if (typeof spec.externalName !== 'string' || spec.externalName === '') out.push(fieldErrors.required('spec.externalName'));
    else for (const m of isDNS1123Subdomain(spec.externalName.replace(/\.$/, ''))) out.push(fieldErrors.invalid('spec.externalName', spec.externalName, m));
  } else if (!headless && (asArray(spec.ports) ?? []).length === 0) {
    out.push(fieldErrors.required('spec.ports'));
  }
  if (headless && (type === 'NodePort' || type === 'LoadBalancer'))
    out.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${String(type)} services`));
  validatePorts(spec, out);
  if (spec.sessionAffinity !== undefined && !AFFINITIES.includes(String(spec.sessionAffinity)))
    out.push(fieldErrors.notSupported('spec.sessionAffinity', spec.sessionAffinity, AFFINITIES));
  for (const f of ['externalTrafficPolicy', 'internalTrafficPolicy'] as const) {
    const v = spec[f];
    if (v !== undefined && v !== null && v !== '' && !TRAFFIC_POLICIES.includes(String(v)))
      out.push(fieldErrors.notSupported(`spec.${f}`, v, TRAFFIC_POLICIES));
  }
  const ips = asArray(spec.clusterIPs) ?? (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : []);
  ips.forEach((ip: unknown, i) => {
    if (ip === 'None' || ip === '') return;
    if (typeof ip !== 'string' || isValidIP(ip).length > 0)
      out.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, "must be empty, 'None', or a valid IP address"));
  });
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && ips.length > 0 && ips[0] !== spec.clusterIP)
    out.push(fieldErrors.invalid('spec.clusterIPs', ips, 'first value must match `clusterIP`'));
  out.push(...validateLabels(spec.selector, 'spec.selector'));
  return out;
}

export function validateServiceUpdate(svc: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(svc.metadata, old.metadata, { namespaced: true, nameFn: isDNS1035Label });
  out.push(...validateService(svc).filter((c) => !c.field?.startsWith('metadata')));
  const spec = isRecord(svc.spec) ? svc.spec : {};
  const oldSpec = isRecord(old.spec) ? old.spec : {};
  const oldIP = oldSpec.clusterIP;
  // clusterIP may not change once set, except when the service becomes ExternalName (which has none).
  if (typeof oldIP === 'string' && oldIP !== '' && spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && spec.clusterIP !== oldIP)
    out.push(fieldErrors.immutable('spec.clusterIP', spec.clusterIP ?? ''));
  return out;
}

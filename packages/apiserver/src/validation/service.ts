// Service validation (ValidateService / ValidateServiceUpdate, the parts kemu's clients meet): ports, type,
// session affinity, cluster IPs, node ports only where the type allows them, clusterIP immutable once set.
import type { KubeObject, StatusCause } from '@kemu/api';
import { ipFamilyOf } from '@kemu/base';
import { asArray, child, fieldErrors, index, isRecord } from './field.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isValidIP, isValidPortName, isValidPortNum } from '@kemu/api';
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

const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

/** clusterIP(s), ipFamilies and ipFamilyPolicy on their own (ValidateServiceClusterIPsRelatedFields). */
function validateClusterIPsRelatedFields(spec: Record<string, unknown>, out: StatusCause[]): void {
  const ips = asArray(spec.clusterIPs) ?? [];
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '') {
    if (ips.length === 0) out.push(fieldErrors.required('spec.clusterIPs'));
    else if (ips[0] !== spec.clusterIP) out.push(fieldErrors.invalid('spec.clusterIPs', ips, 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    out.push(fieldErrors.invalid('spec.clusterIPs', ips, 'must be empty when `clusterIP` is not specified'));
  }
  const families = asArray(spec.ipFamilies) ?? [];
  const seen = new Set<unknown>();
  families.forEach((f, i) => {
    if (!IP_FAMILIES.includes(String(f))) out.push(fieldErrors.notSupported(`spec.ipFamilies[${i}]`, f, IP_FAMILIES));
    if (seen.has(f)) out.push(fieldErrors.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null && !IP_FAMILY_POLICIES.includes(String(policy)))
    out.push(fieldErrors.notSupported('spec.ipFamilyPolicy', policy, IP_FAMILY_POLICIES));
  let invalidIPs = false;
  ips.forEach((ip: unknown, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        invalidIPs = true;
        out.push(fieldErrors.invalid('spec.clusterIPs', ips, "'None' must be the first and only value"));
      }
      return;
    }
    const msgs = typeof ip === 'string' ? isValidIP(ip) : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
    if (msgs.length > 0) invalidIPs = true;
    for (const m of msgs) out.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, m));
  });
  if (ips.length > 2) out.push(fieldErrors.invalid('spec.clusterIPs', ips, 'may only hold up to 2 values'));
  if (invalidIPs) return;
  const ipFamilies = ips.map((ip) => ipFamilyOf(String(ip)));
  if (ips.length > 1 && new Set(ipFamilies).size !== ips.length)
    out.push(fieldErrors.invalid('spec.clusterIPs', ips, 'may specify no more than one IP for each IP family'));
  if (ips[0] === 'None' && ips.length === 1) return;
  ips.forEach((ip, i) => {
    const want = families[i];
    if (want === undefined) return;
    if (want === 'IPv4' && ipFamilies[i] === 'IPv6') out.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
    if (want === 'IPv6' && ipFamilies[i] !== 'IPv6') out.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
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
  const hc = spec.healthCheckNodePort;
  if (hc !== undefined && hc !== null && hc !== 0) {
    if (type !== 'LoadBalancer' || spec.externalTrafficPolicy !== 'Local') out.push(fieldErrors.forbidden('spec.healthCheckNodePort', "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    else for (const m of isValidPortNum(hc)) out.push(fieldErrors.invalid('spec.healthCheckNodePort', hc, m));
  }
  if (type !== 'ExternalName') validateClusterIPsRelatedFields(spec, out);
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
  validateUpgradeDowngradeClusterIPs(spec, oldSpec, out);
  return out;
}

/** A dual-stack upgrade adds, a downgrade (with ipFamilyPolicy SingleStack) drops, the secondary clusterIP. */
function validateUpgradeDowngradeClusterIPs(spec: Record<string, unknown>, oldSpec: Record<string, unknown>, out: StatusCause[]): void {
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return;
  const ips = asArray(spec.clusterIPs) ?? [];
  const oldIPs = asArray(oldSpec.clusterIPs) ?? [];
  if (ips[0] === 'None' && ips.length === 1 && oldIPs[0] === 'None' && oldIPs.length === 1) return;
  if (ips.length === oldIPs.length) {
    // The primary's change is already reported as spec.clusterIP being immutable.
    oldIPs.forEach((ip, i) => {
      if (i > 0 && ip !== ips[i]) out.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ips, 'may not change once set'));
    });
  } else if (ips.length < oldIPs.length) {
    if (ips.length === 0) out.push(fieldErrors.invalid('spec.clusterIPs[0]', ips, 'primary clusterIP can not be unset'));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack')
      out.push(fieldErrors.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
  }
}

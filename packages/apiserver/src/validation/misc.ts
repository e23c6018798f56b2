// Validation of the smaller kinds: Namespace, Node, ConfigMap, Secret, ServiceAccount, Endpoints, Event
// (core and events.k8s.io), Lease, EndpointSlice, PriorityClass, Binding.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord, jsonEqual } from './field.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidIP, isValidPortNum } from '@kemu/api';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { TAINT_EFFECTS } from './pod.ts';

const ns = (o: KubeObject): StatusCause[] => validateObjectMeta(o.metadata, { namespaced: true });
const cluster = (o: KubeObject): StatusCause[] => validateObjectMeta(o.metadata, { namespaced: false });

export function validateNamespace(o: KubeObject): StatusCause[] {
  const out = validateObjectMeta(o.metadata, { namespaced: false, nameFn: isDNS1123Label });
  const spec = isRecord(o.spec) ? o.spec : {};
  (asArray(spec.finalizers) ?? []).forEach((f: unknown, i) => {
    if (typeof f !== 'string') out.push(fieldErrors.invalid(`spec.finalizers[${i}]`, f, 'must be a string'));
    else for (const m of isQualifiedName(f)) out.push(fieldErrors.invalid(`spec.finalizers[${i}]`, f, m));
  });
  return out;
}

export function validateNode(o: KubeObject): StatusCause[] {
  const out = cluster(o);
  const spec = isRecord(o.spec) ? o.spec : {};
  const seen = new Set<string>();
  (asArray(spec.taints) ?? []).forEach((t: unknown, i) => {
    const p = index('spec.taints', i);
    if (!isRecord(t)) return;
    if (typeof t.key !== 'string' || t.key === '') out.push(fieldErrors.required(child(p, 'key')));
    else for (const m of isQualifiedName(t.key)) out.push(fieldErrors.invalid(child(p, 'key'), t.key, m));
    if (t.effect === undefined || t.effect === '') out.push(fieldErrors.required(child(p, 'effect')));
    else if (!TAINT_EFFECTS.includes(String(t.effect))) out.push(fieldErrors.notSupported(child(p, 'effect'), t.effect, TAINT_EFFECTS));
    const k = `${String(t.key)}:${String(t.effect)}`;
    if (seen.has(k)) out.push(fieldErrors.duplicate(p, { key: t.key, effect: t.effect }));
    seen.add(k);
  });
  (asArray(spec.podCIDRs) ?? []).forEach((c: unknown, i) => {
    if (typeof c !== 'string' || !/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(c))
      out.push(fieldErrors.invalid(`spec.podCIDRs[${i}]`, c, 'must be a valid CIDR'));
  });
  return out;
}

export function validateNodeUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false });
  out.push(...validateNode(o).filter((c) => !c.field?.startsWith('metadata')));
  const spec = isRecord(o.spec) ? o.spec : {};
  const oldSpec = isRecord(old.spec) ? old.spec : {};
  // podCIDR(s) may be set once, then never changed.
  if (typeof oldSpec.podCIDR === 'string' && oldSpec.podCIDR !== '' && spec.podCIDR !== oldSpec.podCIDR)
    out.push(fieldErrors.forbidden('spec.podCIDR', 'node updates may not change podCIDR except from "" to valid'));
  if (typeof oldSpec.providerID === 'string' && oldSpec.providerID !== '' && spec.providerID !== oldSpec.providerID)
    out.push(fieldErrors.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  return out;
}

function validateKeys(data: unknown, path: string, out: StatusCause[], seen: Set<string>): void {
  if (data === undefined || data === null) return;
  if (!isRecord(data)) {
    out.push(fieldErrors.invalid(path, data, 'must be a map of keys to strings'));
    return;
  }
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) out.push(fieldErrors.invalid(path, k, m));
    if (seen.has(k)) out.push(fieldErrors.invalid(path, k, 'duplicate of key present in data'));
    seen.add(k);
    if (typeof v !== 'string') out.push(fieldErrors.invalid(`${path}[${k}]`, v, 'must be a string'));
  }
}

const MAX_CONFIG_BYTES = 1024 * 1024;

export function validateConfigMap(o: KubeObject): StatusCause[] {
  const out = ns(o);
  const seen = new Set<string>();
  validateKeys(o.data, 'data', out, new Set());
  validateKeys(o.binaryData, 'binaryData', out, seen);
  if (isRecord(o.data)) for (const k of Object.keys(o.data)) if (seen.has(k)) out.push(fieldErrors.invalid('data', k, 'duplicate of key present in binaryData'));
  const size = JSON.stringify(o.data ?? {}).length + JSON.stringify(o.binaryData ?? {}).length;
  if (size > MAX_CONFIG_BYTES) out.push(fieldErrors.tooLong('', MAX_CONFIG_BYTES));
  return out;
}

export function validateSecret(o: KubeObject): StatusCause[] {
  const out = ns(o);
  validateKeys(o.data, 'data', out, new Set());
  if (isRecord(o.data))
    for (const [k, v] of Object.entries(o.data))
      if (typeof v === 'string' && !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) out.push(fieldErrors.invalid(`data[${k}]`, '<secret contents redacted>', 'illegal base64 data'));
  if (o.type === 'kubernetes.io/service-account-token') {
    const ann = o.metadata.annotations ?? {};
    if (!ann['kubernetes.io/service-account.name']) out.push(fieldErrors.required("metadata.annotations[kubernetes.io/service-account.name]"));
  }
  return out;
}

/** ConfigMaps and Secrets marked immutable may not change data (or the flag). */
export function validateImmutableData(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: true });
  if (old.immutable === true) {
    if (o.immutable !== true) out.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!jsonEqual(o.data, old.data) || !jsonEqual(o.binaryData, old.binaryData))
      out.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
  }
  if (old.type !== undefined && o.type !== old.type) out.push(fieldErrors.immutable('type', o.type ?? ''));
  return out;
}

export function validateServiceAccount(o: KubeObject): StatusCause[] {
  return ns(o);
}

export function validateEndpoints(o: KubeObject): StatusCause[] {
  const out = ns(o);
  (asArray(o.subsets) ?? []).forEach((s: unknown, i) => {
    const p = index('subsets', i);
    if (!isRecord(s)) return;
    for (const f of ['addresses', 'notReadyAddresses'])
      (asArray(s[f]) ?? []).forEach((a: unknown, j) => {
        const ip = isRecord(a) ? a.ip : undefined;
        if (typeof ip !== 'string' || isValidIP(ip).length > 0) out.push(fieldErrors.invalid(`${p}.${f}[${j}].ip`, ip ?? '', 'must be a valid IP address'));
      });
    (asArray(s.ports) ?? []).forEach((port: unknown, j) => {
      const n = isRecord(port) ? port.port : undefined;
      for (const m of isValidPortNum(n)) out.push(fieldErrors.invalid(`${p}.ports[${j}].port`, n ?? 0, m));
    });
  });
  return out;
}

export function validateCoreEvent(o: KubeObject): StatusCause[] {
  const out = ns(o);
  const io = isRecord(o.involvedObject) ? o.involvedObject : undefined;
  if (!io) out.push(fieldErrors.required('involvedObject'));
  else if (typeof io.namespace === 'string' && io.namespace !== '' && io.namespace !== o.metadata.namespace)
    out.push(fieldErrors.invalid('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
  if (o.type !== undefined && o.type !== 'Normal' && o.type !== 'Warning' && o.type !== '')
    out.push(fieldErrors.notSupported('type', o.type, ['Normal', 'Warning']));
  return out;
}

export function validateEventsV1Event(o: KubeObject): StatusCause[] {
  const out = ns(o);
  if (typeof o.eventTime !== 'string' || o.eventTime === '') out.push(fieldErrors.required('eventTime'));
  if (typeof o.reportingController !== 'string' || o.reportingController === '') out.push(fieldErrors.required('reportingController'));
  if (typeof o.reportingInstance !== 'string' || o.reportingInstance === '') out.push(fieldErrors.required('reportingInstance'));
  if (typeof o.action !== 'string' || o.action === '') out.push(fieldErrors.required('action'));
  if (typeof o.reason !== 'string' || o.reason === '') out.push(fieldErrors.required('reason'));
  if (o.type !== 'Normal' && o.type !== 'Warning') out.push(fieldErrors.notSupported('type', o.type ?? '', ['Normal', 'Warning']));
  return out;
}

// events.k8s.io/v1 field → the core/v1 field Kubernetes names in its errors (it validates the stored form).
const EVENT_V1_IMMUTABLE: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['reason', 'reason'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingController', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/**
 * ValidateEventUpdate for a request through events.k8s.io/v1: only metadata and series may change (so an
 * Event written through core/v1, without eventTime or action, can still be updated through the new group).
 */
export function validateEventsV1EventUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: true });
  if (!jsonEqual(o.series ?? null, old.series ?? null) && o.series !== undefined && o.series !== null) {
    const series = isRecord(o.series) ? o.series : {};
    if (typeof series.count !== 'number' || series.count < 2) out.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
    if (typeof series.lastObservedTime !== 'string' || series.lastObservedTime === '') out.push(fieldErrors.required('series.lastObservedTime'));
  }
  for (const [v1, core] of EVENT_V1_IMMUTABLE) {
    if (!jsonEqual(o[v1] ?? null, old[v1] ?? null)) out.push(fieldErrors.immutable(core, o[v1] ?? null));
  }
  return out;
}

export function validateLease(o: KubeObject): StatusCause[] {
  const out = ns(o);
  const spec = isRecord(o.spec) ? o.spec : {};
  const d = spec.leaseDurationSeconds;
  if (d !== undefined && d !== null && (typeof d !== 'number' || d <= 0))
    out.push(fieldErrors.invalid('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  const t = spec.leaseTransitions;
  if (t !== undefined && t !== null && (typeof t !== 'number' || t < 0))
    out.push(fieldErrors.invalid('spec.leaseTransitions', t, 'must be greater than or equal to 0'));
  return out;
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];

export function validateEndpointSlice(o: KubeObject): StatusCause[] {
  const out = ns(o);
  const at = o.addressType;
  if (at === undefined || at === '') out.push(fieldErrors.required('addressType'));
  else if (!ADDRESS_TYPES.includes(String(at))) out.push(fieldErrors.notSupported('addressType', at, ADDRESS_TYPES));
  (asArray(o.endpoints) ?? []).forEach((e: unknown, i) => {
    const p = index('endpoints', i);
    const addrs = isRecord(e) ? asArray(e.addresses) : undefined;
    if (!addrs || addrs.length === 0) out.push(fieldErrors.required(child(p, 'addresses'), 'must contain at least 1 address'));
    else if (addrs.length > 100) out.push(fieldErrors.tooMany(child(p, 'addresses'), addrs.length, 100));
    else
      addrs.forEach((a: unknown, j) => {
        if (typeof a !== 'string') return;
        const bad = at === 'FQDN' ? isDNS1123Subdomain(a) : isValidIP(a);
        for (const m of bad) out.push(fieldErrors.invalid(`${p}.addresses[${j}]`, a, m));
      });
  });
  (asArray(o.ports) ?? []).forEach((port: unknown, i) => {
    const n = isRecord(port) ? port.port : undefined;
    if (n !== undefined && n !== null) for (const m of isValidPortNum(n)) out.push(fieldErrors.invalid(`ports[${i}].port`, n, m));
  });
  return out;
}

export const HIGHEST_USER_PRIORITY = 1_000_000_000;
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

export function validatePriorityClass(o: KubeObject): StatusCause[] {
  const out = cluster(o);
  const name = o.metadata.name ?? '';
  const v = o.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) out.push(fieldErrors.required('value'));
  else if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    if (name !== 'system-node-critical' && name !== 'system-cluster-critical')
      out.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only`));
  } else if (v > HIGHEST_USER_PRIORITY)
    out.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  const pp = o.preemptionPolicy;
  if (pp !== undefined && pp !== 'Never' && pp !== 'PreemptLowerPriority')
    out.push(fieldErrors.notSupported('preemptionPolicy', pp, ['Never', 'PreemptLowerPriority']));
  return out;
}

export function validatePriorityClassUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false });
  out.push(...validatePriorityClass(o).filter((c) => !c.field?.startsWith('metadata')));
  if (o.value !== old.value) out.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if (o.preemptionPolicy !== old.preemptionPolicy) out.push(fieldErrors.immutable('preemptionPolicy', o.preemptionPolicy ?? ''));
  return out;
}

export function validateBinding(o: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const t = isRecord(o.target) ? o.target : {};
  if (t.kind !== undefined && t.kind !== 'Node' && t.kind !== '') out.push(fieldErrors.notSupported('target.kind', t.kind, ['Node', '<empty>']));
  if (typeof t.name !== 'string' || t.name === '') out.push(fieldErrors.required('target.name'));
  return out;
}

/** Generic kinds: metadata only. */
export function validateMetaOnly(namespaced: boolean) {
  return (o: KubeObject): StatusCause[] => validateObjectMeta(o.metadata, { namespaced });
}

export { isDNS1123Subdomain };

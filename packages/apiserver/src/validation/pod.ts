// Pod and PodSpec validation (pkg/apis/core/validation ValidatePod / ValidatePodSpec / ValidatePodUpdate),
// the subset kemu's clients exercise, with Kubernetes' field paths and messages. PodSpec checks are shared
// by the pod templates of Deployments and ReplicaSets.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord, jsonEqual } from './field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isEnvVarName, isValidPortName, isValidPortNum, isQualifiedName } from '@kemu/api';
import { validateResourceRequirements } from './resources.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validateLifecycle, validateProbe } from './probes.ts';
import { validateVolumes } from './volumes.ts';

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
export const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
export const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
export const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];
export const TOLERATION_OPERATORS = ['Equal', 'Exists'];
export const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

function validatePorts(ports: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (ports === undefined || ports === null) return out;
  const list = asArray(ports);
  if (!list) return [fieldErrors.invalid(path, ports, 'must be a list')];
  const names = new Set<string>();
  list.forEach((p: unknown, i) => {
    const pp = index(path, i);
    if (!isRecord(p)) {
      out.push(fieldErrors.invalid(pp, p, 'must be an object'));
      return;
    }
    if (p.name !== undefined && p.name !== '') {
      const n = String(p.name);
      for (const m of isValidPortName(n)) out.push(fieldErrors.invalid(child(pp, 'name'), n, m));
      if (names.has(n)) out.push(fieldErrors.duplicate(child(pp, 'name'), n));
      names.add(n);
    }
    if (p.containerPort === undefined || p.containerPort === 0) out.push(fieldErrors.required(child(pp, 'containerPort')));
    else for (const m of isValidPortNum(p.containerPort)) out.push(fieldErrors.invalid(child(pp, 'containerPort'), p.containerPort, m));
    if (p.hostPort !== undefined && p.hostPort !== 0)
      for (const m of isValidPortNum(p.hostPort)) out.push(fieldErrors.invalid(child(pp, 'hostPort'), p.hostPort, m));
    if (p.protocol === undefined || p.protocol === '') out.push(fieldErrors.required(child(pp, 'protocol')));
    else if (!PROTOCOLS.includes(String(p.protocol))) out.push(fieldErrors.notSupported(child(pp, 'protocol'), p.protocol, PROTOCOLS));
  });
  return out;
}

function validateEnv(env: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const list = asArray(env);
  if (!list) return env === undefined || env === null ? out : [fieldErrors.invalid(path, env, 'must be a list')];
  list.forEach((e: unknown, i) => {
    const p = index(path, i);
    const name = isRecord(e) ? e.name : undefined;
    if (typeof name !== 'string' || name === '') out.push(fieldErrors.required(child(p, 'name')));
    else for (const m of isEnvVarName(name)) out.push(fieldErrors.invalid(child(p, 'name'), name, m));
  });
  return out;
}

function validateContainer(c: unknown, path: string, volumes: Set<string>, init: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  if (!isRecord(c)) return [fieldErrors.invalid(path, c, 'must be an object')];
  if (typeof c.name !== 'string' || c.name === '') out.push(fieldErrors.required(child(path, 'name')));
  else for (const m of isDNS1123Label(c.name)) out.push(fieldErrors.invalid(child(path, 'name'), c.name, m));
  if (typeof c.image !== 'string' || c.image === '') out.push(fieldErrors.required(child(path, 'image')));
  else if (c.image.trim() !== c.image)
    out.push(fieldErrors.invalid(child(path, 'image'), c.image, 'must not have leading or trailing whitespace'));
  out.push(...validatePorts(c.ports, child(path, 'ports')));
  out.push(...validateEnv(c.env, child(path, 'env')));
  out.push(...validateResourceRequirements(c.resources, child(path, 'resources')));
  out.push(...validateProbe(c.livenessProbe, child(path, 'livenessProbe'), 'liveness'));
  out.push(...validateProbe(c.readinessProbe, child(path, 'readinessProbe'), 'readiness'));
  out.push(...validateProbe(c.startupProbe, child(path, 'startupProbe'), 'startup'));
  out.push(...validateLifecycle(c.lifecycle, child(path, 'lifecycle')));
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === '') out.push(fieldErrors.required(child(path, 'imagePullPolicy')));
  else if (!PULL_POLICIES.includes(String(c.imagePullPolicy)))
    out.push(fieldErrors.notSupported(child(path, 'imagePullPolicy'), c.imagePullPolicy, PULL_POLICIES));
  if (c.terminationMessagePolicy === undefined || c.terminationMessagePolicy === '')
    out.push(fieldErrors.required(child(path, 'terminationMessagePolicy')));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(String(c.terminationMessagePolicy)))
    out.push(fieldErrors.notSupported(child(path, 'terminationMessagePolicy'), c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES));
  if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
    if (!init) out.push(fieldErrors.forbidden(child(path, 'restartPolicy'), 'may not be set for non-init containers'));
    else if (c.restartPolicy !== 'Always') out.push(fieldErrors.notSupported(child(path, 'restartPolicy'), c.restartPolicy, ['Always']));
  }
  const mounts = asArray(c.volumeMounts) ?? [];
  const paths = new Set<string>();
  mounts.forEach((m: unknown, i) => {
    const p = index(child(path, 'volumeMounts'), i);
    if (!isRecord(m)) return;
    if (typeof m.name !== 'string' || m.name === '') out.push(fieldErrors.required(child(p, 'name')));
    else if (!volumes.has(m.name)) out.push(fieldErrors.notFound(child(p, 'name'), m.name));
    if (typeof m.mountPath !== 'string' || m.mountPath === '') out.push(fieldErrors.required(child(p, 'mountPath')));
    else {
      if (paths.has(m.mountPath)) out.push(fieldErrors.invalid(child(p, 'mountPath'), m.mountPath, 'must be unique'));
      paths.add(m.mountPath);
    }
  });
  return out;
}

export function validateTolerations(tolerations: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const list = asArray(tolerations);
  if (!list) return tolerations === undefined || tolerations === null ? out : [fieldErrors.invalid(path, tolerations, 'must be a list')];
  list.forEach((t: unknown, i) => {
    const p = index(path, i);
    if (!isRecord(t)) return;
    const k = typeof t.key === 'string' ? t.key : '';
    if (k !== '') for (const m of isQualifiedName(k)) out.push(fieldErrors.invalid(child(p, 'key'), k, m));
    const op = t.operator === undefined || t.operator === '' ? 'Equal' : t.operator;
    if (k === '' && op !== 'Exists')
      out.push(
        fieldErrors.invalid(
          child(p, 'operator'),
          op,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (!TOLERATION_OPERATORS.includes(String(op))) out.push(fieldErrors.notSupported(child(p, 'operator'), op, TOLERATION_OPERATORS));
    if (op === 'Exists' && typeof t.value === 'string' && t.value !== '')
      out.push(fieldErrors.invalid(child(p, 'operator'), t.value, "value must be empty when `operator` is 'Exists'"));
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute')
      out.push(fieldErrors.invalid(child(p, 'effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (t.effect !== undefined && t.effect !== '' && !TAINT_EFFECTS.includes(String(t.effect)))
      out.push(fieldErrors.notSupported(child(p, 'effect'), t.effect, TAINT_EFFECTS));
  });
  return out;
}

/** ValidatePodSpec at `path` ("spec" for pods, "spec.template.spec" for templates). */
export function validatePodSpec(spec: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!isRecord(spec)) return [fieldErrors.required(path)];
  const volumes = validateVolumes(spec.volumes, child(path, 'volumes'), out);
  const names = new Set<string>();
  const checkList = (field: 'containers' | 'initContainers' | 'ephemeralContainers', required: boolean): void => {
    const raw = spec[field];
    const list = asArray(raw);
    if (!list || list.length === 0) {
      if (required) out.push(fieldErrors.required(child(path, field)));
      else if (raw !== undefined && raw !== null && !list) out.push(fieldErrors.invalid(child(path, field), raw, 'must be a list'));
      return;
    }
    list.forEach((c: unknown, i) => {
      const p = index(child(path, field), i);
      out.push(...validateContainer(c, p, volumes, field === 'initContainers'));
      const n = isRecord(c) && typeof c.name === 'string' ? c.name : '';
      if (n !== '') {
        if (names.has(n)) out.push(fieldErrors.duplicate(child(p, 'name'), n));
        names.add(n);
      }
    });
  };
  checkList('containers', true);
  checkList('initContainers', false);
  const others = new Set(names);
  (asArray(spec.ephemeralContainers) ?? []).forEach((c: unknown, i) => {
    const p = index(child(path, 'ephemeralContainers'), i);
    out.push(...validateContainer(c, p, volumes, false).filter((e) => e.field !== child(p, 'restartPolicy')));
    if (!isRecord(c)) return;
    if (typeof c.name === 'string' && c.name !== '') {
      if (names.has(c.name)) out.push(fieldErrors.duplicate(child(p, 'name'), c.name));
      names.add(c.name);
    }
    // The target must be a regular or init container.
    if (typeof c.targetContainerName === 'string' && c.targetContainerName !== '' && !others.has(c.targetContainerName))
      out.push(fieldErrors.notFound(child(p, 'targetContainerName'), c.targetContainerName));
    for (const f of EPHEMERAL_FORBIDDEN) if (!isZero(c[f])) out.push(fieldErrors.forbidden(child(p, f), 'cannot be set for an Ephemeral Container'));
  });
  if (spec.restartPolicy === undefined || spec.restartPolicy === '') out.push(fieldErrors.required(child(path, 'restartPolicy')));
  else if (!RESTART_POLICIES.includes(String(spec.restartPolicy)))
    out.push(fieldErrors.notSupported(child(path, 'restartPolicy'), spec.restartPolicy, RESTART_POLICIES));
  if (spec.dnsPolicy === undefined || spec.dnsPolicy === '') out.push(fieldErrors.required(child(path, 'dnsPolicy')));
  else if (!DNS_POLICIES.includes(String(spec.dnsPolicy)))
    out.push(fieldErrors.notSupported(child(path, 'dnsPolicy'), spec.dnsPolicy, DNS_POLICIES));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (typeof ads !== 'number' || !Number.isInteger(ads) || ads < 1 || ads > 2147483647))
    out.push(fieldErrors.invalid(child(path, 'activeDeadlineSeconds'), ads, 'must be between 1 and 2147483647, inclusive'));
  const tgps = spec.terminationGracePeriodSeconds;
  if (tgps !== undefined && tgps !== null && (typeof tgps !== 'number' || !Number.isInteger(tgps)))
    out.push(fieldErrors.invalid(child(path, 'terminationGracePeriodSeconds'), tgps, 'must be an integer'));
  for (const f of ['nodeName', 'serviceAccountName'] as const) {
    const v = spec[f];
    if (typeof v === 'string' && v !== '') for (const m of isDNS1123Subdomain(v)) out.push(fieldErrors.invalid(child(path, f), v, m));
  }
  if (typeof spec.hostname === 'string' && spec.hostname !== '')
    for (const m of isDNS1123Label(spec.hostname)) out.push(fieldErrors.invalid(child(path, 'hostname'), spec.hostname, m));
  if (isRecord(spec.nodeSelector))
    for (const [k, v] of Object.entries(spec.nodeSelector)) {
      for (const m of isQualifiedName(k)) out.push(fieldErrors.invalid(child(path, 'nodeSelector'), k, m));
      if (typeof v !== 'string') out.push(fieldErrors.invalid(child(path, 'nodeSelector'), v, 'must be a string'));
    }
  out.push(...validateTolerations(spec.tolerations, child(path, 'tolerations')));
  if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== null && !PREEMPTION_POLICIES.includes(String(spec.preemptionPolicy)))
    out.push(fieldErrors.notSupported(child(path, 'preemptionPolicy'), spec.preemptionPolicy, PREEMPTION_POLICIES));
  return out;
}

export function validatePod(pod: KubeObject): StatusCause[] {
  const out = [...validateObjectMeta(pod.metadata, { namespaced: true }), ...validatePodSpec(pod.spec, 'spec')];
  // Ephemeral containers come only through pods/ephemeralcontainers.
  if ((asArray(isRecord(pod.spec) ? pod.spec.ephemeralContainers : undefined) ?? []).length > 0) out.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  return out;
}

export const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

function sameImages(a: unknown, b: unknown): boolean {
  const al = asArray(a) ?? [];
  const bl = asArray(b) ?? [];
  return al.length === bl.length;
}

/** Copies the mutable pod spec fields from `from` over a clone of `base`, to compare the rest. */
function maskMutable(spec: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  const m: Record<string, unknown> = structuredClone(spec);
  for (const f of ['containers', 'initContainers'] as const) {
    const mine = asArray(m[f]);
    const theirs = asArray(from[f]);
    if (mine && theirs && mine.length === theirs.length)
      mine.forEach((c, i) => {
        const t = theirs[i];
        if (isRecord(c) && isRecord(t)) c.image = t.image;
      });
  }
  m.activeDeadlineSeconds = from.activeDeadlineSeconds;
  m.tolerations = from.tolerations;
  m.terminationGracePeriodSeconds = from.terminationGracePeriodSeconds;
  return m;
}

/** Container fields an ephemeral container may not set (Kubernetes lists the allowed ones; these are the rest). */
const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const;

/** Go's reflect IsZero on a decoded field: clients send empty structs (kubectl's `resources: {}`). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.values(v).every(isZero);
}

/**
 * ValidatePodEphemeralContainersUpdate: the pod as a whole is valid, and the ephemeral containers it had are
 * all still there, unchanged (order aside): they can only be added.
 */
export function validatePodEphemeralContainersUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(pod.metadata, old.metadata, { namespaced: true });
  out.push(...validatePodSpec(pod.spec, 'spec'));
  const byName = new Map<string, unknown>();
  for (const c of asArray(isRecord(pod.spec) ? pod.spec.ephemeralContainers : undefined) ?? []) if (isRecord(c) && typeof c.name === 'string') byName.set(c.name, c);
  for (const c of asArray(isRecord(old.spec) ? old.spec.ephemeralContainers : undefined) ?? []) {
    if (!isRecord(c) || typeof c.name !== 'string') continue;
    const now = byName.get(c.name);
    if (now === undefined) out.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers "${c.name}" may not be removed`));
    else if (!jsonEqual(now, c)) out.push(fieldErrors.forbidden(`spec.ephemeralContainers[${c.name}]`, `existing ephemeral containers "${c.name}" may not be changed`));
  }
  return out;
}

export function validatePodUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(pod.metadata, old.metadata, { namespaced: true });
  out.push(...validatePodSpec(pod.spec, 'spec'));
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const oldSpec = isRecord(old.spec) ? old.spec : {};
  // activeDeadlineSeconds may be added or lowered, never removed or raised.
  const oldAds = oldSpec.activeDeadlineSeconds;
  const ads = spec.activeDeadlineSeconds;
  if (typeof oldAds === 'number' && (typeof ads !== 'number' || ads > oldAds))
    out.push(fieldErrors.invalid('spec.activeDeadlineSeconds', ads ?? null, 'must be less than or equal to previous value'));
  // Tolerations: only additions.
  const oldTol = asArray(oldSpec.tolerations) ?? [];
  const newTol = asArray(spec.tolerations) ?? [];
  const tolerationsOK = oldTol.every((t) => newTol.some((n) => jsonEqual(n, t)));
  const oldTgps = oldSpec.terminationGracePeriodSeconds;
  const tgpsOK =
    spec.terminationGracePeriodSeconds === oldTgps || (typeof oldTgps === 'number' && oldTgps < 0 && spec.terminationGracePeriodSeconds === 1);
  const masked = maskMutable(spec, oldSpec);
  if (!sameImages(spec.containers, oldSpec.containers) || !jsonEqual(masked, oldSpec) || !tolerationsOK || !tgpsOK)
    out.push(fieldErrors.forbidden('spec', POD_UPDATE_FORBIDDEN));
  return out;
}

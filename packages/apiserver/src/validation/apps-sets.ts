// DaemonSet, StatefulSet and ControllerRevision validation (pkg/apis/apps/validation): selector and template,
// update strategies, the fields of a StatefulSet spec that may change, revisions' immutable data.
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, isRecord, jsonEqual } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { intOrPercent, nonNegative, selectorImmutable, validateSelectorAndTemplate } from './apps.ts';
import { goLabelSelector } from './goformat.ts';
import { validatePersistentVolumeClaimSpec } from './storage.ts';

type Rec = Record<string, unknown>;

function daemonSetStrategy(strategy: unknown, out: StatusCause[]): void {
  const path = 'spec.updateStrategy';
  const s = isRecord(strategy) ? strategy : {};
  const types = ['OnDelete', 'RollingUpdate'];
  if (!types.includes(String(s.type))) {
    out.push(fieldErrors.notSupported(child(path, 'type'), s.type ?? '', types));
    return;
  }
  if (s.type !== 'RollingUpdate') return;
  if (!isRecord(s.rollingUpdate)) {
    out.push(fieldErrors.required(child(path, 'rollingUpdate')));
    return;
  }
  const ru = s.rollingUpdate;
  const p = child(path, 'rollingUpdate');
  const mu = intOrPercent(ru.maxUnavailable, child(p, 'maxUnavailable'), out);
  const ms = intOrPercent(ru.maxSurge, child(p, 'maxSurge'), out);
  if (mu === 0 && ms === 0) out.push(fieldErrors.invalid(child(p, 'maxUnavailable'), ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  if (mu !== undefined && mu !== 0 && ms !== undefined && ms !== 0)
    out.push(fieldErrors.invalid(child(p, 'maxSurge'), ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
}

export function validateDaemonSet(ds: KubeObject): StatusCause[] {
  const out = validateObjectMeta(ds.metadata, { namespaced: true });
  if (!isRecord(ds.spec)) return [...out, fieldErrors.required('spec')];
  const spec = ds.spec;
  out.push(...validateSelectorAndTemplate(spec, 'daemonset', { templateRequired: true }));
  const tspec = isRecord(spec.template) && isRecord(spec.template.spec) ? spec.template.spec : {};
  if (tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null)
    out.push(fieldErrors.invalid('spec.template.spec.activeDeadlineSeconds', tspec.activeDeadlineSeconds, 'activeDeadlineSeconds must be nil for daemonset'));
  nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', out);
  nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', out);
  daemonSetStrategy(spec.updateStrategy, out);
  return out;
}

export function validateDaemonSetUpdate(ds: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateDaemonSet(ds).filter((c) => !c.field?.startsWith('metadata'));
  return [...validateObjectMetaUpdate(ds.metadata, old.metadata, { namespaced: true }), ...out, ...selectorImmutable(ds, old)];
}

export function validateDaemonSetStatus(ds: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(ds.status) ? ds.status : {};
  for (const f of ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'])
    nonNegative(st[f], `status.${f}`, out);
  return out;
}

function statefulSetStrategy(strategy: unknown, out: StatusCause[]): void {
  const s = isRecord(strategy) ? strategy : {};
  switch (s.type) {
    case undefined:
    case '':
      out.push(fieldErrors.required('spec.updateStrategy'));
      return;
    case 'OnDelete':
      if (s.rollingUpdate !== undefined && s.rollingUpdate !== null)
        out.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate', s.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      return;
    case 'RollingUpdate': {
      if (!isRecord(s.rollingUpdate)) return;
      nonNegative(s.rollingUpdate.partition, 'spec.updateStrategy.rollingUpdate.partition', out);
      const mu = intOrPercent(s.rollingUpdate.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable', out);
      if (mu === 0) out.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', s.rollingUpdate.maxUnavailable, 'must be greater than 0'));
      return;
    }
    default:
      out.push(fieldErrors.invalid('spec.updateStrategy', s, "must be 'RollingUpdate' or 'OnDelete'"));
  }
}

function retentionPolicy(policy: unknown, out: StatusCause[]): void {
  if (!isRecord(policy)) return;
  for (const f of ['whenDeleted', 'whenScaled']) {
    const v = policy[f];
    if (v !== 'Retain' && v !== 'Delete')
      out.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v ?? '', ['Retain', 'Delete']));
  }
}

export function validateStatefulSet(sts: KubeObject): StatusCause[] {
  const out = validateObjectMeta(sts.metadata, { namespaced: true });
  if (!isRecord(sts.spec)) return [...out, fieldErrors.required('spec')];
  const spec = sts.spec;
  const policy = spec.podManagementPolicy;
  if (policy === undefined || policy === '') out.push(fieldErrors.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    out.push(fieldErrors.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  statefulSetStrategy(spec.updateStrategy, out);
  retentionPolicy(spec.persistentVolumeClaimRetentionPolicy, out);
  nonNegative(spec.replicas, 'spec.replicas', out);
  nonNegative(spec.minReadySeconds, 'spec.minReadySeconds', out);
  if (isRecord(spec.ordinals)) nonNegative(spec.ordinals.start, 'spec.ordinals.start', out);
  // Kubernetes leaves a StatefulSet's pod spec unchecked here: its volume mounts name claim templates, not volumes.
  out.push(...validateSelectorAndTemplate(spec, 'statefulset', { templateRequired: true, podSpec: false }));
  const tspec = isRecord(spec.template) && isRecord(spec.template.spec) ? spec.template.spec : {};
  if (tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null)
    out.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  (asArray(spec.volumeClaimTemplates) ?? []).forEach((t, i) => {
    const name = isRecord(t) && isRecord(t.metadata) ? t.metadata.name : undefined;
    if (typeof name !== 'string' || name === '') out.push(fieldErrors.required(`spec.volumeClaimTemplates[${i}].metadata.name`, 'name or generateName is required'));
    const claimSpec = isRecord(t) && isRecord(t.spec) ? t.spec : {};
    out.push(...validatePersistentVolumeClaimSpec(claimSpec, `spec.volumeClaimTemplates[${i}].spec`));
  });
  return out;
}

/** The spec fields a StatefulSet update may change (ValidateStatefulSetUpdate). */
const MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateStatefulSetUpdate(sts: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateStatefulSet(sts).filter((c) => !c.field?.startsWith('metadata'));
  const strip = (spec: unknown): Rec => {
    const s = { ...(isRecord(spec) ? spec : {}) };
    for (const f of MUTABLE) delete s[f];
    return s;
  };
  if (!jsonEqual(strip(sts.spec), strip(old.spec)))
    out.push(
      fieldErrors.forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  return [...validateObjectMetaUpdate(sts.metadata, old.metadata, { namespaced: true }), ...out];
}

export function validateStatefulSetStatus(sts: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const st = isRecord(sts.status) ? sts.status : {};
  for (const f of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'])
    nonNegative(st[f], `status.${f}`, out);
  const replicas = typeof st.replicas === 'number' ? st.replicas : 0;
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'])
    if (typeof st[f] === 'number' && st[f] > replicas) out.push(fieldErrors.invalid(`status.${f}`, st[f], 'cannot be greater than status.replicas'));
  return out;
}

export function validateControllerRevision(cr: KubeObject): StatusCause[] {
  const out = validateObjectMeta(cr.metadata, { namespaced: true });
  if (cr.data === undefined || cr.data === null) out.push(fieldErrors.required('data', 'data is mandatory'));
  nonNegative(cr.revision, 'revision', out);
  return out;
}

export function validateControllerRevisionUpdate(cr: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateControllerRevision(cr).filter((c) => !c.field?.startsWith('metadata'));
  if (!jsonEqual(cr.data, old.data)) out.push(fieldErrors.immutable('data', cr.data));
  return [...validateObjectMetaUpdate(cr.metadata, old.metadata, { namespaced: true }), ...out];
}

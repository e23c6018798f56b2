// apps/v1 defaulting (pkg/apis/apps/v1/defaults.go): Deployment and ReplicaSet.
import { defaultPodTemplate } from './pod.ts';
import { defaultPersistentVolumeClaim } from './storage.ts';
import { ensureObj, isObj, setDefault } from './util.ts';
import type { Obj } from './util.ts';

export function defaultDeployment(d: Obj): void {
  const spec = ensureObj(d, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  const strategy = ensureObj(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}

export function defaultReplicaSet(rs: Obj): void {
  const spec = ensureObj(rs, 'spec');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}

/** SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, 10 revisions kept. */
export function defaultDaemonSet(ds: Obj): void {
  const spec = ensureObj(ds, 'spec');
  const strategy = ensureObj(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}

/** SetDefaults_PersistentVolumeClaim as it reaches a StatefulSet's claim templates (their status too). */
function defaultClaimTemplate(pvc: Obj): void {
  ensureObj(pvc, 'status');
  defaultPersistentVolumeClaim(pvc);
}

/**
 * SetDefaults_StatefulSet: OrderedReady, RollingUpdate with partition 0, one replica, 10 revisions kept,
 * claims retained on delete and scale down.
 */
export function defaultStatefulSet(sts: Obj): void {
  const spec = ensureObj(sts, 'spec');
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObj(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    if (ru.partition === undefined || ru.partition === null) ru.partition = 0;
  }
  const policy = ensureObj(spec, 'persistentVolumeClaimRetentionPolicy');
  setDefault(policy, 'whenDeleted', 'Retain');
  setDefault(policy, 'whenScaled', 'Retain');
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
  if (Array.isArray(spec.volumeClaimTemplates)) for (const t of spec.volumeClaimTemplates) if (isObj(t)) defaultClaimTemplate(t);
}

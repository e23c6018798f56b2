// apps/v1 defaulting (pkg/apis/apps/v1/defaults.go): Deployment and ReplicaSet.
import { defaultPodTemplate } from './pod.ts';
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

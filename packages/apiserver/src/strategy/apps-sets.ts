// daemonsets, statefulsets and controllerrevisions (pkg/registry/apps/{daemonset,statefulset,controllerrevision}/strategy.go):
// generation per spec change, status reset on create and kept on update, /status keeps spec and labels; a
// DaemonSet's template generation counted in the deprecated.daemonset.template.generation annotation.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultDaemonSet, defaultStatefulSet } from '../defaults/apps.ts';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDaemonSetStatus,
  validateDaemonSetUpdate,
  validateStatefulSet,
  validateStatefulSetStatus,
  validateStatefulSetUpdate,
} from '../validation/apps-sets.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';
import { jsonEqual } from '../validation/field.ts';

const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function templateOf(o: KubeObject): unknown {
  return (o.spec as { template?: unknown } | undefined)?.template;
}

function setTemplateGeneration(ds: KubeObject, gen: number): void {
  ds.metadata.annotations = { ...(ds.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: String(gen) };
}

export const daemonSetStrategy = buildStrategy(R.daemonsets, {
  defaults: (ds) => defaultDaemonSet(ds),
  validate: validateDaemonSet,
  validateUpdate: validateDaemonSetUpdate,
  validateStatusUpdate: (ds, old) => [...validateObjectMetaUpdate(ds.metadata, old.metadata, { namespaced: true }), ...validateDaemonSetStatus(ds)],
  status: { initial: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }) },
  generation: true,
  statusKeepsMeta: ['labels'],
  prepareForCreate: (ds) => setTemplateGeneration(ds, 1),
  prepareForUpdate: (ds, old) => {
    const gen = Number(old.metadata.annotations?.[TEMPLATE_GENERATION] ?? '1') || 1;
    setTemplateGeneration(ds, jsonEqual(templateOf(ds), templateOf(old)) ? gen : gen + 1);
  },
});

export const statefulSetStrategy = buildStrategy(R.statefulsets, {
  defaults: (sts) => defaultStatefulSet(sts),
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  validateStatusUpdate: (sts, old) => [...validateObjectMetaUpdate(sts.metadata, old.metadata, { namespaced: true }), ...validateStatefulSetStatus(sts)],
  status: { initial: () => ({ replicas: 0, availableReplicas: 0 }) },
  generation: true,
  statusKeepsMeta: ['labels'],
});

export const controllerRevisionStrategy = buildStrategy(R.controllerrevisions, {
  validate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
});

// A StatefulSet pod's identity and storage (pkg/controller/statefulset/stateful_set_utils.go): the name
// <set>-<ordinal>, hostname and subdomain, the pod-name and pod-index labels, its revision label, and the claims
// <template>-<set>-<ordinal> mounted as the volumes their templates name.
import type { OwnerReference, PersistentVolumeClaimTemplate, Pod, PodTemplateSpec, StatefulSet, Volume } from '@kemu/api';
import { podFromTemplate } from '../podcontrol.ts';
import { CONTROLLER_REVISION_HASH } from '../history.ts';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export const startOrdinal = (set: StatefulSet): number => set.spec.ordinals?.start ?? 0;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata.name ?? ''}-${ordinal}`;
export const claimName = (tpl: PersistentVolumeClaimTemplate, set: StatefulSet, ordinal: number): string => `${tpl.metadata.name ?? ''}-${podName(set, ordinal)}`;

/** getOrdinal: the ordinal a pod's name gives for this set, or -1. */
export function ordinalOf(set: StatefulSet, pod: Pod): number {
  const prefix = `${set.metadata.name ?? ''}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return -1;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

export const revisionOf = (pod: Pod): string | undefined => pod.metadata.labels?.[CONTROLLER_REVISION_HASH];

/** newVersionedStatefulSetPod: the pod for an ordinal from a template, labelled with its revision. */
export function newStatefulPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string, ref: OwnerReference): Pod {
  const ns = set.metadata.namespace ?? '';
  const pod = podFromTemplate(template, ns, set.metadata.name ?? '', ref);
  delete pod.metadata.generateName;
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [POD_NAME_LABEL]: podName(set, ordinal), [POD_INDEX_LABEL]: String(ordinal), [CONTROLLER_REVISION_HASH]: revision };
  pod.spec.hostname = podName(set, ordinal);
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  const claims: Volume[] = (set.spec.volumeClaimTemplates ?? []).map((t) => ({
    name: t.metadata.name ?? '',
    persistentVolumeClaim: { claimName: claimName(t, set, ordinal) },
  }));
  if (claims.length > 0) {
    const names = new Set(claims.map((v) => v.name));
    pod.spec.volumes = [...claims, ...(pod.spec.volumes ?? []).filter((v) => !names.has(v.name))];
  }
  return pod;
}

// The APIServices of the groups the apiserver serves itself (kube-apiserver's autoregister and CRD
// registration controllers): one per built-in group/version, with Kubernetes' discovery priorities, labelled
// kube-aggregator.kubernetes.io/automanaged=onstart (created or reset when an apiserver starts), and one per
// served custom resource group/version (priority 1000/100), labelled automanaged=true (created and deleted as
// CRDs come and go). An APIService without the label belongs to the user and is left alone.
import { RESOURCES, R, StatusError, type KubeObject } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';
import { deleteRequest } from '../registry/delete-plan.ts';
import { jsonEqual } from '../validation/field.ts';

export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** [groupPriorityMinimum, versionPriority] of the built-in group/versions (kube-apiserver's apiVersionPriorities). */
const PRIORITIES: Record<string, readonly [number, number]> = {
  '/v1': [18000, 1],
  'apiregistration.k8s.io/v1': [18000, 15],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};

/** The priorities a group-version's local APIService gets: Kubernetes' table, else those of a custom resource's. */
export function localPriority(group: string, version: string): readonly [number, number] {
  return PRIORITIES[`${group}/${version}`] ?? CRD_PRIORITY;
}

const CRD_PRIORITY = [1000, 100] as const;

export type Managed = 'onstart' | 'true';

function apiService(group: string, version: string, [gpm, vp]: readonly [number, number], managed: Managed): KubeObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED_LABEL]: managed } },
    spec: { group, version, groupPriorityMinimum: gpm, versionPriority: vp },
  };
}

/** The local APIServices wanted: built-in group/versions, then those of served custom resources (`crdGroupVersions`). */
export function localAPIServices(crdGroupVersions: Iterable<string>): KubeObject[] {
  const out = new Map<string, KubeObject>();
  for (const r of RESOURCES) {
    const gv = `${r.group}/${r.version}`;
    const p = PRIORITIES[gv];
    // Kubernetes registers only group/versions of its table (a missing one would stick around).
    if (p && !out.has(gv)) out.set(gv, apiService(r.group, r.version, p, 'onstart'));
  }
  for (const gv of crdGroupVersions) {
    if (out.has(gv)) continue;
    const [group = '', version = ''] = gv.split('/');
    out.set(gv, apiService(group, version, CRD_PRIORITY, 'true'));
  }
  return [...out.values()];
}

const expected = (e: unknown): boolean => e instanceof StatusError && (e.reason === 'AlreadyExists' || e.reason === 'NotFound' || e.reason === 'Conflict');

/**
 * Creates the wanted APIServices that are missing; on start (`resetOnStart`) puts back the spec of changed
 * automanaged=onstart ones; deletes automanaged=true ones no longer wanted. Races with other replicas are
 * expected (AlreadyExists, NotFound, Conflict).
 */
export async function syncLocalAPIServices(registry: Registry, existing: readonly KubeObject[], wanted: readonly KubeObject[], resetOnStart: boolean): Promise<void> {
  const byName = new Map(existing.map((o) => [o.metadata.name ?? '', o]));
  for (const w of wanted) {
    const name = w.metadata.name ?? '';
    const cur = byName.get(name);
    try {
      if (!cur) await registry.create(R.apiservices, structuredClone(w));
      else if (resetOnStart && cur.metadata.labels?.[AUTOMANAGED_LABEL] === 'onstart' && !jsonEqual(cur.spec, w.spec))
        await registry.update(R.apiservices, undefined, name, { ...structuredClone(cur), spec: structuredClone(w.spec) });
    } catch (e) {
      if (!expected(e)) throw e;
    }
  }
  const wantedNames = new Set(wanted.map((w) => w.metadata.name));
  for (const cur of existing) {
    if (cur.metadata.labels?.[AUTOMANAGED_LABEL] !== 'true' || wantedNames.has(cur.metadata.name)) continue;
    await registry.delete(R.apiservices, undefined, cur.metadata.name ?? '', deleteRequest(R.apiservices, {})).catch((e: unknown) => {
      if (!expected(e)) throw e;
    });
  }
}

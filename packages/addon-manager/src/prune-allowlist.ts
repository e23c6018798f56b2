// The kinds a reconcile may prune: the real script's KUBECTL_PRUNE_WHITELIST (kubectl apply's default prune
// list of its time) plus KUBECTL_EXTRA_PRUNE_WHITELIST, each "group/version/Kind" ("core" for the core group).
// Other kinds (ServiceAccount, ClusterRole, ...) are applied but never pruned unless listed, as in Kubernetes.
// The script names batch/v1beta1 CronJob and extensions/v1beta1 Ingress; kemu serves their GA versions.
import { findResourceByKind, type ResourceInfo } from '@kemu/api';

export const DEFAULT_PRUNE_ALLOWLIST = [
  'core/v1/ConfigMap',
  'core/v1/Endpoints',
  'core/v1/Namespace',
  'core/v1/PersistentVolumeClaim',
  'core/v1/PersistentVolume',
  'core/v1/Pod',
  'core/v1/ReplicationController',
  'core/v1/Secret',
  'core/v1/Service',
  'batch/v1/Job',
  'batch/v1/CronJob',
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
  'networking.k8s.io/v1/Ingress',
] as const;

export class AllowlistError extends Error {}

/** "apps/v1/Deployment" → its resource; throws an AllowlistError naming the entry kemu does not serve. */
export function parseAllowlistEntry(entry: string): ResourceInfo {
  const parts = entry.split('/');
  if (parts.length !== 3 || parts.some((p) => p === '')) throw new AllowlistError(`invalid GroupVersionKind format: ${entry}, please follow <group/version/kind>`);
  const [group, version, kind] = parts as [string, string, string];
  const apiVersion = group === 'core' ? version : `${group}/${version}`;
  const r = findResourceByKind(apiVersion, kind);
  if (!r) throw new AllowlistError(`invalid GroupVersionKind: ${entry}: no matches for kind "${kind}" in version "${apiVersion}"`);
  return r;
}

/** The default list plus the extra entries (space- or comma-separated, as the script's environment variable). */
export function pruneAllowlist(extra: string): ResourceInfo[] {
  const extras = extra.split(/[\s,]+/).filter(Boolean);
  const out: ResourceInfo[] = [];
  for (const e of [...DEFAULT_PRUNE_ALLOWLIST, ...extras]) {
    const r = parseAllowlistEntry(e);
    if (!out.includes(r)) out.push(r);
  }
  return out;
}

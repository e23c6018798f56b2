// The strategic-merge-patch metadata of the built-in kinds (the patchStrategy / patchMergeKey struct tags of
// k8s.io/api), as one table keyed on where a list sits. Lists not named here are atomic (replaced whole).
import type { ResourceInfo } from '@kemu/api';

export type ListStrategy =
  | { kind: 'merge'; key: string; retainKeys?: boolean }
  | { kind: 'primitiveMerge' }
  | { kind: 'replace' };

interface Rule {
  /** Field names from the root, '*' matching any one; matched against the path's tail. */
  suffix: string[];
  strategy: ListStrategy;
  /** Only for these plurals (e.g. service ports). */
  plurals?: string[];
}

const byName = (retainKeys = false): ListStrategy => ({ kind: 'merge', key: 'name', ...(retainKeys ? { retainKeys } : {}) });

const RULES: Rule[] = [
  { suffix: ['metadata', 'ownerReferences'], strategy: { kind: 'merge', key: 'uid' } },
  { suffix: ['metadata', 'finalizers'], strategy: { kind: 'primitiveMerge' } },
  // PodSpec (pods, and templates at spec.template.spec).
  { suffix: ['spec', 'containers'], strategy: byName() },
  { suffix: ['spec', 'initContainers'], strategy: byName() },
  { suffix: ['spec', 'ephemeralContainers'], strategy: byName() },
  { suffix: ['spec', 'volumes'], strategy: byName(true) },
  { suffix: ['spec', 'imagePullSecrets'], strategy: byName() },
  { suffix: ['spec', 'hostAliases'], strategy: { kind: 'merge', key: 'ip' } },
  { suffix: ['spec', 'topologySpreadConstraints'], strategy: { kind: 'merge', key: 'topologyKey' } },
  { suffix: ['spec', 'schedulingGates'], strategy: byName() },
  { suffix: ['spec', 'resourceClaims'], strategy: byName(true) },
  // Container.
  { suffix: ['containers', 'ports'], strategy: { kind: 'merge', key: 'containerPort' } },
  { suffix: ['initContainers', 'ports'], strategy: { kind: 'merge', key: 'containerPort' } },
  { suffix: ['ephemeralContainers', 'ports'], strategy: { kind: 'merge', key: 'containerPort' } },
  { suffix: ['*', 'env'], strategy: byName() },
  { suffix: ['*', 'volumeMounts'], strategy: { kind: 'merge', key: 'mountPath' } },
  { suffix: ['*', 'volumeDevices'], strategy: { kind: 'merge', key: 'devicePath' } },
  // Status lists.
  { suffix: ['status', 'conditions'], strategy: { kind: 'merge', key: 'type' } },
  { suffix: ['status', 'podIPs'], strategy: { kind: 'merge', key: 'ip' } },
  { suffix: ['status', 'hostIPs'], strategy: { kind: 'merge', key: 'ip' } },
  { suffix: ['status', 'addresses'], strategy: { kind: 'merge', key: 'type' }, plurals: ['nodes'] },
  // Service ports merge by port.
  { suffix: ['spec', 'ports'], strategy: { kind: 'merge', key: 'port' }, plurals: ['services'] },
  // ServiceAccount secrets / imagePullSecrets.
  { suffix: ['secrets'], strategy: byName(), plurals: ['serviceaccounts'] },
  { suffix: ['imagePullSecrets'], strategy: byName(), plurals: ['serviceaccounts'] },
];

function tailMatches(path: readonly string[], suffix: string[]): boolean {
  if (suffix.length > path.length) return false;
  const off = path.length - suffix.length;
  return suffix.every((s, i) => s === '*' || s === path[off + i]);
}

/** `path` is the list field's position as field names from the root (list indices omitted). */
export function listStrategy(resource: ResourceInfo | undefined, path: readonly string[]): ListStrategy {
  for (const rule of RULES) {
    if (rule.plurals && (!resource || !rule.plurals.includes(resource.plural))) continue;
    if (rule.plurals && rule.suffix.length === 1 && path.length !== 1) continue;
    if (tailMatches(path, rule.suffix)) return rule.strategy;
  }
  return { kind: 'replace' };
}

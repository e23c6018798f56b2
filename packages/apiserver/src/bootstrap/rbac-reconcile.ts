// What start-up reconciliation does to one existing bootstrap role or binding, as Kubernetes'
// pkg/registry/rbac/reconciliation in its union mode (`kubectl auth reconcile` without --remove-extra-*):
// labels and annotations are merged (existing values win), missing rules or subjects are appended, nothing
// is removed; an object annotated rbac.authorization.kubernetes.io/autoupdate=false is left alone.
import { uncoveredRules } from '../authz/rbac-covers.ts';
import { AUTOUPDATE_ANNOTATION, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Role, type RoleBinding, type Subject } from '../authz/bootstrap-policy/index.ts';
import type { LabelSelector } from '@kemu/api';

export type RoleLike = ClusterRole | Role;
export type BindingLike = ClusterRoleBinding | RoleBinding;

export interface ReconcileResult<T> {
  /** The object to write (a copy of existing with the additions), when something is missing. */
  update?: T;
  /** The binding's roleRef differs: it must be deleted and created again (roleRef is immutable). */
  recreate?: boolean;
  /** autoupdate=false: changes were needed but are not made. */
  protected: boolean;
  missingRules: PolicyRule[];
  missingSubjects: Subject[];
}

const isProtected = (o: RoleLike | BindingLike): boolean => o.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

/** Merges the expected labels and annotations under the existing ones; true when one was added. */
function mergeMeta(target: RoleLike | BindingLike, expected: RoleLike | BindingLike): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const want = expected.metadata[field] ?? {};
    const have = target.metadata[field] ?? {};
    const merged = { ...want, ...have };
    if (Object.keys(merged).length !== Object.keys(have).length) {
      target.metadata[field] = merged;
      changed = true;
    }
  }
  return changed;
}

const selectorKey = (s: LabelSelector): string => JSON.stringify([Object.entries(s.matchLabels ?? {}).sort(), s.matchExpressions ?? []]);

export function reconcileRole<T extends RoleLike>(existing: T, expected: T): ReconcileResult<T> {
  const next = structuredClone(existing);
  let changed = mergeMeta(next, expected);
  const missingRules = uncoveredRules(existing.rules ?? [], expected.rules ?? []);
  if (missingRules.length > 0) {
    next.rules = [...(existing.rules ?? []), ...missingRules];
    changed = true;
  }
  if (next.kind === 'ClusterRole' && expected.kind === 'ClusterRole') {
    const want = expected.aggregationRule?.clusterRoleSelectors;
    if (!expected.aggregationRule && next.aggregationRule) {
      // Not meant to aggregate at all: stop, or the controller keeps overwriting the rules.
      delete next.aggregationRule;
      changed = true;
    } else if (want) {
      const have = next.aggregationRule?.clusterRoleSelectors ?? [];
      const haveKeys = new Set(have.map(selectorKey));
      const missing = want.filter((s) => !haveKeys.has(selectorKey(s)));
      if (missing.length > 0) {
        next.aggregationRule = { clusterRoleSelectors: [...have, ...missing] };
        changed = true;
      }
    }
  }
  const result: ReconcileResult<T> = { protected: isProtected(existing), missingRules, missingSubjects: [] };
  if (changed) result.update = next;
  return result;
}

const subjectKey = (s: Subject): string => `${s.kind}/${s.apiGroup ?? ''}/${s.namespace ?? ''}/${s.name}`;

export function reconcileBinding<T extends BindingLike>(existing: T, expected: T): ReconcileResult<T> {
  const next = structuredClone(existing);
  let changed = mergeMeta(next, expected);
  const recreate = JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef);
  if (recreate) {
    next.roleRef = structuredClone(expected.roleRef);
    changed = true;
  }
  const have = new Set((existing.subjects ?? []).map(subjectKey));
  const missingSubjects = (expected.subjects ?? []).filter((s) => !have.has(subjectKey(s)));
  if (missingSubjects.length > 0) {
    next.subjects = [...(existing.subjects ?? []), ...missingSubjects];
    changed = true;
  }
  const result: ReconcileResult<T> = { protected: isProtected(existing), missingRules: [], missingSubjects };
  if (changed) result.update = next;
  if (recreate) result.recreate = true;
  return result;
}

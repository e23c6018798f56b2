// The bindings of a cluster indexed by subject, so one decision reads only the bindings that name the user,
// one of its groups or its ServiceAccount, instead of every binding (Kubernetes lists them all per request).
// The index holds bindings only: roles are looked up when a decision reads a binding, so it is rebuilt (lazily,
// by the authorizer) when a binding changes, not when a role does. Bindings keep a fixed order
// (ClusterRoleBindings by name, RoleBindings by name within their namespace), so the binding named in an
// "allowed by" reason is stable.
import { SERVICE_ACCOUNT_PREFIX, type UserInfo } from '../authn/user.ts';
import type { ClusterRoleBinding, RoleBinding, RoleRef, Subject } from '@kemu/api';
import type { RbacLookups } from './rbac-lookups.ts';

export interface IndexedBinding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  roleRef: RoleRef;
  subjects: readonly Subject[];
  order: number;
}

export interface BindingHit {
  binding: IndexedBinding;
  /** The first subject of the binding that matches the user (named in the reason). */
  subjectIndex: number;
}

const userKey = (name: string) => `u\0${name}`;
const groupKey = (name: string) => `g\0${name}`;
const saKey = (namespaceAndName: string) => `s\0${namespaceAndName}`;

/** The index key a subject matches, or undefined when it matches nobody (e.g. a ServiceAccount without a namespace). */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return userKey(s.name);
    case 'Group':
      return groupKey(s.name);
    case 'ServiceAccount': {
      // A RoleBinding's ServiceAccount subject defaults to the binding's namespace.
      const ns = s.namespace || bindingNamespace;
      return ns === '' ? undefined : saKey(`${ns}:${s.name}`);
    }
    default:
      return undefined;
  }
}

/** The keys a user matches: its name, each group, and (system:serviceaccount:<ns>:<name>) its ServiceAccount. */
export function keysOf(user: UserInfo): string[] {
  const keys = [userKey(user.username)];
  for (const g of user.groups) keys.push(groupKey(g));
  // serviceaccount.MatchesUsername compares prefix + ns + ":" + name with the whole username: the same text.
  if (user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) keys.push(saKey(user.username.slice(SERVICE_ACCOUNT_PREFIX.length)));
  return keys;
}

type Table = Map<string, BindingHit[]>;

export class SubjectIndex {
  private readonly cluster: Table = new Map();
  private readonly byNamespace = new Map<string, Table>();

  constructor(lookups: RbacLookups) {
    const sortByName = <T extends { metadata: { name?: string } }>(xs: Iterable<T>) =>
      [...xs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
    let order = 0;
    for (const crb of sortByName<ClusterRoleBinding>(lookups.clusterRoleBindings())) this.add(this.cluster, crb, '', order++);
    for (const rb of sortByName<RoleBinding>(lookups.roleBindings())) {
      const ns = rb.metadata.namespace ?? '';
      if (ns === '') continue;
      let t = this.byNamespace.get(ns);
      if (!t) this.byNamespace.set(ns, (t = new Map()));
      this.add(t, rb, ns, order++);
    }
  }

  private add(table: Table, b: RoleBinding | ClusterRoleBinding, namespace: string, order: number): void {
    const subjects = b.subjects ?? [];
    const keyed = new Map<string, number>();
    subjects.forEach((s, i) => {
      const k = subjectKey(s, namespace);
      if (k !== undefined && !keyed.has(k)) keyed.set(k, i);
    });
    if (keyed.size === 0) return;
    const entry: IndexedBinding = {
      kind: namespace === '' ? 'ClusterRoleBinding' : 'RoleBinding',
      name: b.metadata.name ?? '',
      namespace,
      roleRef: b.roleRef,
      subjects,
      order,
    };
    for (const [k, subjectIndex] of keyed) {
      let hits = table.get(k);
      if (!hits) table.set(k, (hits = []));
      hits.push({ binding: entry, subjectIndex });
    }
  }

  /** The ClusterRoleBindings (namespace '') or the namespace's RoleBindings that apply to the user, in binding order. */
  hits(keys: readonly string[], namespace: string): readonly BindingHit[] {
    const table = namespace === '' ? this.cluster : this.byNamespace.get(namespace);
    if (!table) return [];
    let only: BindingHit[] | undefined;
    let merged: BindingHit[] | undefined;
    for (const k of keys) {
      const hits = table.get(k);
      if (!hits) continue;
      if (!only) only = hits;
      else (merged ??= [...only]).push(...hits);
    }
    if (!merged) return only ?? [];
    // A binding naming the user twice (e.g. by name and by group) counts once, with its first matching subject.
    merged.sort((a, b) => a.binding.order - b.binding.order || a.subjectIndex - b.subjectIndex);
    return merged.filter((h, i) => i === 0 || (merged as BindingHit[])[i - 1]?.binding !== h.binding);
  }
}

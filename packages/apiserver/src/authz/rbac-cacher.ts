// RBAC lookups backed by the apiserver's watch cache (as Kubernetes' RBAC authorizer reads informer listers):
// no store round trip per decision, and a revision made of the binding caches' change counters, so the
// authorizer's subject index is rebuilt only after a binding changed (or the caches were rebuilt).
import { R, type ClusterRole, type ClusterRoleBinding, type ResourceInfo, type Role, type RoleBinding } from '@kemu/api';
import { objectKey } from '../storage.ts';
import type { Cacher } from '../watch/cacher.ts';
import type { ResourceCache } from '../watch/resource-cache.ts';
import type { RbacLookups } from './rbac-lookups.ts';

const BINDINGS = [R.rolebindings, R.clusterrolebindings] as const;

export function rbacLookupsFromCacher(cacher: Cacher): RbacLookups {
  // Each ResourceCache object gets a number, so a cache rebuilt from scratch (counters restarting) still reads as a change.
  const ids = new WeakMap<ResourceCache, number>();
  let nextId = 0;
  const cache = (r: ResourceInfo): ResourceCache => {
    const c = cacher.caches.get(r);
    if (!c) throw new Error('the watch cache is not ready');
    return c;
  };
  function* objects<T>(r: ResourceInfo): Iterable<T> {
    for (const o of cache(r).objects.values()) yield o.object as unknown as T;
  }
  return {
    revision() {
      let rev = '';
      for (const r of BINDINGS) {
        const c = cacher.caches.get(r);
        if (!c) return 'not-ready';
        let id = ids.get(c);
        if (id === undefined) ids.set(c, (id = nextId++));
        rev += `${id}:${c.changes},`;
      }
      return rev;
    },
    clusterRoleBindings: () => objects<ClusterRoleBinding>(R.clusterrolebindings),
    roleBindings: () => objects<RoleBinding>(R.rolebindings),
    clusterRole: (name) => cache(R.clusterroles).objects.get(objectKey(R.clusterroles, undefined, name))?.object as ClusterRole | undefined,
    role: (namespace, name) => cache(R.roles).objects.get(objectKey(R.roles, namespace, name))?.object as Role | undefined,
  };
}

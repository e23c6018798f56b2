// NamespaceLifecycle admission: no new objects in a namespace that does not exist or is terminating,
// and the system namespaces may not be deleted. Reads the watch cache first, then the store (a namespace
// created a moment ago through another replica may not be cached yet).
import { errors, qualifiedResource, R, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { Registry } from './registry/registry.ts';
import { objectKey } from './storage.ts';
import type { Cacher } from './watch/cacher.ts';

export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export function namespaceLifecycle(cacher: Cacher, registry: () => Registry) {
  return async (r: ResourceInfo, namespace: string, name: string): Promise<void> => {
    let ns: KubeObject | undefined;
    if (cacher.isReady()) ns = cacher.cache(R.namespaces).objects.get(objectKey(R.namespaces, undefined, namespace))?.object;
    if (!ns) {
      try {
        ns = await registry().get(R.namespaces, undefined, namespace);
      } catch {
        ns = undefined;
      }
    }
    if (!ns) throw errors.notFound('namespaces', namespace);
    const phase = ((ns.status ?? {}) as { phase?: string }).phase;
    if (phase === 'Terminating' || ns.metadata.deletionTimestamp) {
      throw errors.forbidden(`${qualifiedResource(r)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  };
}

export function checkNamespaceDeletable(name: string): void {
  if (IMMORTAL_NAMESPACES.includes(name)) throw errors.forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
}

/** Namespace create defaults that lifecycle depends on: spec.finalizers ["kubernetes"], phase Active. */
export function namespaceCreateDefaults(obj: KubeObject): void {
  const raw: unknown = obj.spec ?? {};
  // A non-object spec is a decode error in Kubernetes, not something to default into.
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw errors.badRequest(`Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw} into Go struct field Namespace.spec of type v1.NamespaceSpec`);
  }
  const spec = raw as { finalizers?: string[] };
  if (!spec.finalizers || spec.finalizers.length === 0) spec.finalizers = ['kubernetes'];
  obj.spec = spec;
  obj.status = { phase: 'Active' };
}

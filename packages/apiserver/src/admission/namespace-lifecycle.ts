// NamespaceLifecycle: no new objects in a namespace that does not exist or is terminating, and the
// system namespaces may not be deleted. Kubernetes runs it first among the mutating plugins, so a missing
// namespace is the answer before any other plugin looks at the object.
import { errors, qualifiedResource, R, type KubeObject } from '@kemu/api';
import type { AdmissionPlugin } from './types.ts';

export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export const namespaceLifecyclePlugin: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  async admit(attrs, ctx) {
    if (attrs.operation === 'DELETE' && attrs.resource === R.namespaces && !attrs.subresource) {
      checkNamespaceDeletable(attrs.name);
      return;
    }
    if (attrs.operation !== 'CREATE' || !attrs.resource.namespaced || !attrs.namespace || !ctx.getNamespace) return;
    const ns = await ctx.getNamespace(attrs.namespace);
    if (!ns) throw errors.notFound('namespaces', attrs.namespace);
    const phase = ((ns.status ?? {}) as { phase?: string }).phase;
    if (phase === 'Terminating' || ns.metadata.deletionTimestamp) {
      throw errors.forbidden(`${qualifiedResource(attrs.resource)} "${attrs.name}" is forbidden: unable to create new content in namespace ${attrs.namespace} because it is being terminated`);
    }
  },
};

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

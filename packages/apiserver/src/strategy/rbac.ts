// roles, clusterroles, rolebindings, clusterrolebindings: validation as pkg/apis/rbac/validation, the binding
// defaults of rbac/v1. Escalation prevention needs the user and the rule resolver, so it is not here (pure
// functions) but in authz/rbac-escalation.ts, called by the registry's write guard. A PUT of a missing RBAC
// object creates it, as their Kubernetes strategies allow.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultBinding } from '../defaults/rbac.ts';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from '../validation/rbac.ts';

export const roleStrategy = buildStrategy(R.roles, { validate: validateRole, validateUpdate: validateRoleUpdate, allowCreateOnUpdate: true });
export const clusterRoleStrategy = buildStrategy(R.clusterroles, { validate: validateClusterRole, validateUpdate: validateClusterRoleUpdate, allowCreateOnUpdate: true });
export const roleBindingStrategy = buildStrategy(R.rolebindings, {
  defaults: defaultBinding,
  validate: validateRoleBinding,
  validateUpdate: validateRoleBindingUpdate,
  allowCreateOnUpdate: true,
});
export const clusterRoleBindingStrategy = buildStrategy(R.clusterrolebindings, {
  defaults: defaultBinding,
  validate: validateClusterRoleBinding,
  validateUpdate: validateClusterRoleBindingUpdate,
  allowCreateOnUpdate: true,
});

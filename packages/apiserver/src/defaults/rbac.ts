// rbac/v1 defaults (pkg/apis/rbac/v1/defaults.go): a binding's roleRef.apiGroup is the RBAC group, a User or
// Group subject's apiGroup is the RBAC group and a ServiceAccount subject's the core group "".
import { RBAC_GROUP, type KubeObject } from '@kemu/api';
import { isObj, objects } from './util.ts';

export function defaultSubjects(o: KubeObject): void {
  for (const s of objects(o.subjects)) {
    if (typeof s.apiGroup === 'string' && s.apiGroup !== '') continue;
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
    // "" is the ServiceAccount default, and Go's omitempty leaves it out of the JSON.
    else delete s.apiGroup;
  }
}

export function defaultBinding(o: KubeObject): void {
  if (isObj(o.roleRef) && (o.roleRef.apiGroup === undefined || o.roleRef.apiGroup === null || o.roleRef.apiGroup === '')) o.roleRef.apiGroup = RBAC_GROUP;
  defaultSubjects(o);
}

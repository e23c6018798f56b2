// rbac.authorization.k8s.io validation (pkg/apis/rbac/validation): names are path segments, rules need verbs
// and either resources or non-resource URLs (the latter only in ClusterRoles), bindings point at a Role or
// ClusterRole of the RBAC group and never change that roleRef, subjects are User, Group or ServiceAccount.
import { RBAC_GROUP, type KubeObject, type StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord } from './field.ts';
import { GoValue } from './goformat.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Subdomain, isValidPathSegmentName } from '@kemu/api';

/** Kubernetes' RBAC name rule (a path segment), plus NUL, which no store key may hold (etcd would take it; kemu's SQLite keys cannot). */
const rbacName = (v: string): string[] => [...isValidPathSegmentName(v), ...(v.includes('\0') ? ["may not contain '\\x00'"] : [])];

const strings = (v: unknown): string[] => (asArray(v) ?? []).filter((x): x is string => typeof x === 'string');
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});

function meta(o: KubeObject, namespaced: boolean): StatusCause[] {
  return validateObjectMeta(o.metadata, { namespaced, nameFn: rbacName });
}

/** ValidateRole (metadata included) then ValidateObjectMetaUpdate: what the first already said is not repeated. */
function withMetaUpdate(causes: StatusCause[], o: KubeObject, old: KubeObject, namespaced: boolean): StatusCause[] {
  const seen = new Set(causes.map((c) => `${c.field ?? ''}\0${c.message ?? ''}`));
  const more = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced, nameFn: rbacName });
  return [...causes, ...more.filter((c) => !seen.has(`${c.field ?? ''}\0${c.message ?? ''}`))];
}

function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): StatusCause[] {
  const r = record(rule);
  const out: StatusCause[] = [];
  const verbs = strings(r.verbs);
  const apiGroups = strings(r.apiGroups);
  const resources = strings(r.resources);
  const resourceNames = strings(r.resourceNames);
  const urls = strings(r.nonResourceURLs);
  if (verbs.length === 0) out.push(fieldErrors.required(child(path, 'verbs'), 'verbs must contain at least one value'));
  if (urls.length > 0) {
    if (namespaced) out.push(fieldErrors.invalid(child(path, 'nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0)
      out.push(fieldErrors.invalid(child(path, 'nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    return out;
  }
  if (apiGroups.length === 0) out.push(fieldErrors.required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (resources.length === 0) out.push(fieldErrors.required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  if (resourceNames.length > 0 && resources.length > 1)
    out.push(fieldErrors.required(child(path, 'resourceNames'), 'resource names cannot apply to multiple resources'));
  return out;
}

function validateRules(o: KubeObject, namespaced: boolean): StatusCause[] {
  return (asArray(o.rules) ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, index('rules', i)));
}

export function validateRole(o: KubeObject): StatusCause[] {
  return [...meta(o, true), ...validateRules(o, true)];
}

export function validateRoleUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return withMetaUpdate(validateRole(o), o, old, true);
}

export function validateClusterRole(o: KubeObject): StatusCause[] {
  return [...meta(o, false), ...validateRules(o, false)];
}

export function validateClusterRoleUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return withMetaUpdate(validateClusterRole(o), o, old, false);
}

function validateSubject(subject: unknown, namespaced: boolean, path: string): StatusCause[] {
  const s = record(subject);
  const out: StatusCause[] = [];
  const name = text(s.name);
  const apiGroup = text(s.apiGroup);
  if (name === '') out.push(fieldErrors.required(child(path, 'name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const m of isDNS1123Subdomain(name)) out.push(fieldErrors.invalid(child(path, 'name'), name, m));
      if (apiGroup !== '') out.push(fieldErrors.notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && text(s.namespace) === '') out.push(fieldErrors.required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (name === '') out.push(fieldErrors.invalid(child(path, 'name'), name, `${s.kind === 'User' ? 'user' : 'group'} name cannot be empty`));
      if (apiGroup !== RBAC_GROUP) out.push(fieldErrors.notSupported(child(path, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      out.push(fieldErrors.notSupported(child(path, 'kind'), text(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return out;
}

function validateBindingCommon(o: KubeObject, namespaced: boolean): StatusCause[] {
  const out = meta(o, namespaced);
  const ref = record(o.roleRef);
  const apiGroup = text(ref.apiGroup);
  const kind = text(ref.kind);
  const name = text(ref.name);
  if (apiGroup !== RBAC_GROUP) out.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) out.push(fieldErrors.notSupported('roleRef.kind', kind, kinds));
  if (name === '') out.push(fieldErrors.required('roleRef.name'));
  else for (const m of isValidPathSegmentName(name)) out.push(fieldErrors.invalid('roleRef.name', name, m));
  (asArray(o.subjects) ?? []).forEach((s, i) => out.push(...validateSubject(s, namespaced, index('subjects', i))));
  return out;
}

/** How Go's %#v prints the internal rbac.RoleRef in "cannot change roleRef". */
function goRoleRef(ref: unknown): GoValue {
  const r = record(ref);
  return new GoValue(`rbac.RoleRef{APIGroup:${JSON.stringify(text(r.apiGroup))}, Kind:${JSON.stringify(text(r.kind))}, Name:${JSON.stringify(text(r.name))}}`);
}

function roleRefChanged(o: KubeObject, old: KubeObject): StatusCause[] {
  const a = record(o.roleRef);
  const b = record(old.roleRef);
  const same = text(a.apiGroup) === text(b.apiGroup) && text(a.kind) === text(b.kind) && text(a.name) === text(b.name);
  return same ? [] : [fieldErrors.invalid('roleRef', goRoleRef(o.roleRef), 'cannot change roleRef')];
}

export function validateRoleBinding(o: KubeObject): StatusCause[] {
  return validateBindingCommon(o, true);
}

export function validateRoleBindingUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return [...withMetaUpdate(validateRoleBinding(o), o, old, true), ...roleRefChanged(o, old)];
}

export function validateClusterRoleBinding(o: KubeObject): StatusCause[] {
  return validateBindingCommon(o, false);
}

export function validateClusterRoleBindingUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return [...withMetaUpdate(validateClusterRoleBinding(o), o, old, false), ...roleRefChanged(o, old)];
}

// What the access reviews share: the spec's checks (pkg/apis/authorization/validation), the authorizer
// attributes read from it (pkg/registry/authorization/util) and the status filled from the decision, as
// Kubernetes' SelfSubjectAccessReview, SubjectAccessReview and LocalSubjectAccessReview do.
import type { StatusCause } from '@kemu/api';
import type { UserInfo } from '../authn/user.ts';
import type { Attributes, AuthorizationResult } from '../authz/types.ts';
import { GoValue } from '../validation/goformat.ts';
import { fieldErrors } from '../validation/field.ts';
import { goQuote } from '@kemu/base';
import { resourceSelectorCauses, selectorEvaluationNotes } from './review-selectors.ts';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown): v is Obj => v !== undefined && v !== null;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The internal type's %#v, as field.Invalid prints a set *NonResourceAttributes. */
function goNonResourceAttributes(n: Obj): GoValue {
  return new GoValue(`authorization.NonResourceAttributes{Path:${goQuote(str(n.path))}, Verb:${goQuote(str(n.verb))}}`);
}

/**
 * The checks of a (Self)SubjectAccessReview spec, in Kubernetes' order: exactly one of resourceAttributes and
 * nonResourceAttributes; for SubjectAccessReview (subject: true) a user or a group; the selectors.
 */
export function accessSpecCauses(spec: Obj, subject: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const res = spec.resourceAttributes;
  const nonRes = spec.nonResourceAttributes;
  if (present(res) && present(nonRes)) {
    causes.push(fieldErrors.invalid('spec.nonResourceAttributes', goNonResourceAttributes(nonRes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!present(res) && !present(nonRes)) {
    // Go prints the nil pointer it is given as the string "null".
    causes.push(fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (subject && str(spec.user) === '' && groups.length === 0) {
    causes.push(fieldErrors.invalid('spec.user', str(spec.user), 'at least one of user or group must be specified'));
  }
  if (isObject(res)) causes.push(...resourceSelectorCauses(res));
  return causes;
}

/** LocalSubjectAccessReview: the review's namespace is the URL's; no non-resource attributes. */
export function localSpecCauses(spec: Obj, namespace: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const res = spec.resourceAttributes;
  if (isObject(res) && str(res.namespace) !== namespace) {
    causes.push(fieldErrors.invalid('spec.resourceAttributes.namespace', str(res.namespace), 'must match metadata.namespace'));
  }
  if (present(spec.nonResourceAttributes)) {
    causes.push(fieldErrors.invalid('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  }
  return causes;
}

/** The subject a SubjectAccessReview asks about (AuthorizationAttributesFrom's user.DefaultInfo). */
export function subjectOf(spec: Obj): UserInfo {
  const user: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = {
    username: str(spec.user),
    groups: Array.isArray(spec.groups) ? spec.groups.map(str) : [],
  };
  if (str(spec.uid) !== '') user.uid = str(spec.uid);
  if (isObject(spec.extra)) {
    user.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, Array.isArray(v) ? v.map(str) : []]));
  }
  return user;
}

/** The attributes to authorize (ResourceAttributesFrom / NonResourceAttributesFrom); an unset version is "*". */
export function attributesFromSpec(user: UserInfo, spec: Obj): Attributes {
  const res = spec.resourceAttributes;
  if (isObject(res)) {
    return {
      user,
      verb: str(res.verb),
      resourceRequest: true,
      path: '',
      apiGroup: str(res.group),
      apiVersion: str(res.version) || '*',
      resource: str(res.resource),
      subresource: str(res.subresource),
      namespace: str(res.namespace),
      name: str(res.name),
    };
  }
  const n = isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  return { user, verb: str(n.verb), resourceRequest: false, path: str(n.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

/**
 * SubjectAccessReviewStatus as Go serializes it: allowed always; denied, reason and evaluationError when set.
 * The evaluation error is the authorizer's, then the notes on selectors that could not be read, "; "-joined.
 */
export function accessStatus(r: AuthorizationResult, spec: Obj): Obj {
  const status: Obj = { allowed: r.decision === 'allow' };
  if (r.decision === 'deny') status.denied = true;
  if (r.reason !== '') status.reason = r.reason;
  const errs = [...(r.evaluationError ? [r.evaluationError] : []), ...(isObject(spec.resourceAttributes) ? selectorEvaluationNotes(spec.resourceAttributes) : [])];
  if (errs.length) status.evaluationError = errs.join('; ');
  return status;
}

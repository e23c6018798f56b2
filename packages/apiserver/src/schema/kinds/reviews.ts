// The reviews clients post to ask the apiserver a question: authorization.k8s.io/v1 SelfSubjectAccessReview
// (`auth can-i`), SelfSubjectRulesReview (`auth can-i --list`), the (Local)SubjectAccessReview that client-go's
// delegated authorizers post, and authentication.k8s.io/v1 SelfSubjectReview (`auth whoami`) and TokenReview
// (delegated authentication). Every list is atomic; resourceAttributes, nonResourceAttributes and the two
// selectors are *struct pointers, so they are present exactly when the client set them.
import { bool, list, mapOf, msg, str, strs, struct } from '../build.ts';
import { FieldSelectorRequirement, LabelSelectorRequirement, ObjectMeta } from './meta.ts';

const AUTHZ = 'io.k8s.api.authorization.v1.';
const AUTHN = 'io.k8s.api.authentication.v1.';

const metadata = msg('metadata', () => ObjectMeta, 'Standard object metadata; a review is not stored, so it is usually empty.');

export const FieldSelectorAttributes = struct(`${AUTHZ}FieldSelectorAttributes`, 'A field selector the request is limited to, as a string or parsed; not both.', {
  1: str('rawSelector', 'The selector as written in the query (spec.nodeName=node-1).'),
  2: list('requirements', () => FieldSelectorRequirement, 'The selector already parsed into conditions.'),
});

export const LabelSelectorAttributes = struct(`${AUTHZ}LabelSelectorAttributes`, 'A label selector the request is limited to, as a string or parsed; not both.', {
  1: str('rawSelector', 'The selector as written in the query (app=web,tier!=db).'),
  2: list('requirements', () => LabelSelectorRequirement, 'The selector already parsed into conditions.'),
});

export const ResourceAttributes = struct(`${AUTHZ}ResourceAttributes`, 'A request on an API resource, described as the authorizer sees it.', {
  1: str('namespace', 'Namespace of the request; empty means all namespaces (or a cluster-scoped resource).'),
  2: str('verb', 'get, list, watch, create, update, patch, delete, deletecollection or a custom verb; * means all.'),
  3: str('group', 'API group of the resource; "" is the core group and * means all.'),
  4: str('version', 'API version of the resource; * means all.'),
  5: str('resource', 'Resource plural (pods, deployments); * means all.'),
  6: str('subresource', 'Subresource (log, status, scale); empty for the resource itself.'),
  7: str('name', 'Name of the object; empty means any (as for list and create).'),
  8: msg('fieldSelector', () => FieldSelectorAttributes, 'The field selector of a list or watch, if any.'),
  9: msg('labelSelector', () => LabelSelectorAttributes, 'The label selector of a list or watch, if any.'),
});

export const NonResourceAttributes = struct(`${AUTHZ}NonResourceAttributes`, 'A request on a URL that is not an API resource (/healthz, /version).', {
  1: str('path', 'The URL path.'),
  2: str('verb', 'The HTTP method in lower case (get, post…).'),
});

export const SelfSubjectAccessReviewSpec = struct(`${AUTHZ}SelfSubjectAccessReviewSpec`, 'The request to check for the calling user; set exactly one field.', {
  1: msg('resourceAttributes', () => ResourceAttributes, 'A request on an API resource.'),
  2: msg('nonResourceAttributes', () => NonResourceAttributes, 'A request on a non-resource URL.'),
});

export const SubjectAccessReviewStatus = struct(`${AUTHZ}SubjectAccessReviewStatus`, "The authorizer's answer: allowed, denied, or no opinion when both are false.", {
  1: bool('allowed', 'True when the request would be allowed.'),
  4: bool('denied', 'True when an authorizer explicitly denies it; false with allowed false means no opinion.'),
  2: str('reason', 'Why it was allowed or denied, when the authorizer says.'),
  3: str('evaluationError', 'An error met while checking; the answer may still be set.'),
});

export const SelfSubjectAccessReview = struct(`${AUTHZ}SelfSubjectAccessReview`, 'Asks whether the calling user may perform an action (kubectl auth can-i).', {
  1: metadata,
  2: msg('spec', () => SelfSubjectAccessReviewSpec, 'The action to check.'),
  3: msg('status', () => SubjectAccessReviewStatus, 'The answer, filled in by the server.'),
});

/** authorization/v1 ExtraValue and authentication/v1 ExtraValue are both a Go []string with no OpenAPI definition of its own. */
export const ExtraValue = struct('', 'Values of one extra user attribute, as a list of strings.', { 1: strs('items', 'The values.') }, { format: 'string-list' });

/** SubjectAccessReview and LocalSubjectAccessReview (delegated authorizers, `kubectl create -f`) share this spec. */
export const SubjectAccessReviewSpec = struct(`${AUTHZ}SubjectAccessReviewSpec`, 'The request to check and the user it is for; set one of the two attributes.', {
  1: msg('resourceAttributes', () => ResourceAttributes, 'A request on an API resource.'),
  2: msg('nonResourceAttributes', () => NonResourceAttributes, 'A request on a non-resource URL.'),
  3: str('user', 'The user to check; with groups, at least one of the two must be set.'),
  4: strs('groups', 'Groups the user belongs to.'),
  5: mapOf('extra', () => ExtraValue, 'Extra attributes of the user that an authorizer may use.'),
  6: str('uid', 'UID of the user.'),
});

export const SubjectAccessReview = struct(`${AUTHZ}SubjectAccessReview`, 'Asks whether a given user may perform an action (used by delegated authorization).', {
  1: metadata,
  2: msg('spec', () => SubjectAccessReviewSpec, 'The action and the user to check.'),
  3: msg('status', () => SubjectAccessReviewStatus, 'The answer, filled in by the server.'),
});

export const LocalSubjectAccessReview = struct(`${AUTHZ}LocalSubjectAccessReview`, "Asks whether a given user may perform an action in this review's namespace.", {
  1: metadata,
  2: msg('spec', () => SubjectAccessReviewSpec, "The action and the user to check; its namespace must be the review's, or empty."),
  3: msg('status', () => SubjectAccessReviewStatus, 'The answer, filled in by the server.'),
});

export const SelfSubjectRulesReviewSpec = struct(`${AUTHZ}SelfSubjectRulesReviewSpec`, 'Where to list the calling user\'s permissions.', {
  1: str('namespace', 'The namespace to list the rules for.'),
});

export const ResourceRule = struct(`${AUTHZ}ResourceRule`, 'Verbs the user may perform on some resources; * means all.', {
  1: strs('verbs', 'Verbs allowed (get, list, create…); * means all.'),
  2: strs('apiGroups', 'API groups of the resources; "" is the core group and * means all.'),
  3: strs('resources', 'Resources the rule covers (pods, pods/log); * means all.'),
  4: strs('resourceNames', 'Object names the rule is limited to; empty means any name.'),
});

export const NonResourceRule = struct(`${AUTHZ}NonResourceRule`, 'Verbs the user may perform on some non-resource URLs.', {
  1: strs('verbs', 'HTTP verbs allowed in lower case (get, post…); * means all.'),
  2: strs('nonResourceURLs', 'URL paths; a trailing * matches any suffix, and * alone means all.'),
});

export const SubjectRulesReviewStatus = struct(`${AUTHZ}SubjectRulesReviewStatus`, 'The permissions the authorizers could list; may be incomplete.', {
  1: list('resourceRules', () => ResourceRule, 'What the user may do with API resources in the namespace.'),
  2: list('nonResourceRules', () => NonResourceRule, 'What the user may do with non-resource URLs.'),
  3: bool('incomplete', 'True when some authorizer (a webhook, say) cannot list its rules, so more may be allowed.'),
  4: str('evaluationError', 'An error met while listing; the rules found so far are still returned.'),
});

export const SelfSubjectRulesReview = struct(`${AUTHZ}SelfSubjectRulesReview`, 'Lists what the calling user may do in a namespace (kubectl auth can-i --list).', {
  1: metadata,
  2: msg('spec', () => SelfSubjectRulesReviewSpec, 'The namespace to list.'),
  3: msg('status', () => SubjectRulesReviewStatus, 'The rules, filled in by the server.'),
});

export const UserInfo = struct(`${AUTHN}UserInfo`, 'The identity of an authenticated user.', {
  1: str('username', 'The name that identifies the user.'),
  2: str('uid', 'A unique, stable identifier of the user, if the authenticator has one.'),
  3: strs('groups', 'Groups the user belongs to.'),
  4: mapOf('extra', () => ExtraValue, 'Further attributes the authenticator supplied (a token\'s pod binding, for example).'),
});

export const SelfSubjectReviewStatus = struct(`${AUTHN}SelfSubjectReviewStatus`, 'Who the server authenticated the caller as.', {
  1: msg('userInfo', () => UserInfo, 'The calling user\'s identity.'),
});

/** SelfSubjectReview has no spec: the server fills in status.userInfo. */
export const SelfSubjectReview = struct(`${AUTHN}SelfSubjectReview`, 'Asks who the server takes the caller to be (kubectl auth whoami).', {
  1: metadata,
  2: msg('status', () => SelfSubjectReviewStatus, 'The caller\'s identity, filled in by the server.'),
});

export const TokenReviewSpec = struct(`${AUTHN}TokenReviewSpec`, 'The bearer token to check and the audiences it must be for.', {
  1: str('token', 'The bearer token, without the "Bearer " prefix.'),
  2: strs('audiences', "Audiences the token must be valid for; empty means the apiserver's own."),
});

export const TokenReviewStatus = struct(`${AUTHN}TokenReviewStatus`, 'Whether the token is valid, and whose it is.', {
  1: bool('authenticated', 'True when the token identifies a user.'),
  2: msg('user', () => UserInfo, 'The user the token belongs to.'),
  4: strs('audiences', 'Audiences the token is valid for, among those asked.'),
  3: str('error', 'Why the token could not be checked, if it could not.'),
});

export const TokenReview = struct(`${AUTHN}TokenReview`, 'Asks the apiserver to authenticate a bearer token (used by delegated authentication).', {
  1: metadata,
  2: msg('spec', () => TokenReviewSpec, 'The token to check.'),
  3: msg('status', () => TokenReviewStatus, 'The result, filled in by the server.'),
});

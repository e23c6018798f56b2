// The reviews kubectl's typed clients post: authorization.k8s.io/v1 SelfSubjectAccessReview (`auth can-i`),
// SelfSubjectRulesReview (`auth can-i --list`) and authentication.k8s.io/v1 SelfSubjectReview (`auth whoami`);
// and the (Local)SubjectAccessReview that client-go's delegated authorizers post. Every scalar here is a plain string or bool;
// resourceAttributes, nonResourceAttributes and the two selectors are *struct pointers, so they are present
// exactly when kubectl set them.
import { bool, list, mapOf, msg, str, strs, struct } from '../build.ts';
import { FieldSelectorRequirement, LabelSelectorRequirement, ObjectMeta } from './meta.ts';

const metadata = msg('metadata', () => ObjectMeta);

export const FieldSelectorAttributes = struct('', '', { 1: str('rawSelector'), 2: list('requirements', () => FieldSelectorRequirement) });
export const LabelSelectorAttributes = struct('', '', { 1: str('rawSelector'), 2: list('requirements', () => LabelSelectorRequirement) });

export const ResourceAttributes = struct('', '', {
  1: str('namespace'),
  2: str('verb'),
  3: str('group'),
  4: str('version'),
  5: str('resource'),
  6: str('subresource'),
  7: str('name'),
  8: msg('fieldSelector', () => FieldSelectorAttributes),
  9: msg('labelSelector', () => LabelSelectorAttributes),
});
export const NonResourceAttributes = struct('', '', { 1: str('path'), 2: str('verb') });

export const SelfSubjectAccessReviewSpec = struct('', '', {
  1: msg('resourceAttributes', () => ResourceAttributes),
  2: msg('nonResourceAttributes', () => NonResourceAttributes),
});
export const SubjectAccessReviewStatus = struct('', '', { 1: bool('allowed'), 4: bool('denied'), 2: str('reason'), 3: str('evaluationError') });
export const SelfSubjectAccessReview = struct('', '', {
  1: metadata,
  2: msg('spec', () => SelfSubjectAccessReviewSpec),
  3: msg('status', () => SubjectAccessReviewStatus),
});

/** SubjectAccessReview and LocalSubjectAccessReview (delegated authorizers, `kubectl create -f`) share this spec. */
export const SubjectAccessReviewSpec = struct('', '', {
  1: msg('resourceAttributes', () => ResourceAttributes),
  2: msg('nonResourceAttributes', () => NonResourceAttributes),
  3: str('user'),
  4: strs('groups'),
  5: mapOf('extra', () => ExtraValue),
  6: str('uid'),
});
export const SubjectAccessReview = struct('', '', {
  1: metadata,
  2: msg('spec', () => SubjectAccessReviewSpec),
  3: msg('status', () => SubjectAccessReviewStatus),
});
export const LocalSubjectAccessReview = struct('', '', {
  1: metadata,
  2: msg('spec', () => SubjectAccessReviewSpec),
  3: msg('status', () => SubjectAccessReviewStatus),
});

export const SelfSubjectRulesReviewSpec = struct('', '', { 1: str('namespace') });
export const ResourceRule = struct('', '', { 1: strs('verbs'), 2: strs('apiGroups'), 3: strs('resources'), 4: strs('resourceNames') });
export const NonResourceRule = struct('', '', { 1: strs('verbs'), 2: strs('nonResourceURLs') });
export const SubjectRulesReviewStatus = struct('', '', {
  1: list('resourceRules', () => ResourceRule),
  2: list('nonResourceRules', () => NonResourceRule),
  3: bool('incomplete'),
  4: str('evaluationError'),
});
export const SelfSubjectRulesReview = struct('', '', {
  1: metadata,
  2: msg('spec', () => SelfSubjectRulesReviewSpec),
  3: msg('status', () => SubjectRulesReviewStatus),
});

/** authentication/v1 ExtraValue {1 items} is a Go []string, so its JSON is the list itself. */
export const ExtraValue = struct('', '', { 1: strs('items') }, { format: 'string-list' });
export const UserInfo = struct('', '', { 1: str('username'), 2: str('uid'), 3: strs('groups'), 4: mapOf('extra', () => ExtraValue) });
/** SelfSubjectReview has no spec: the server fills in status.userInfo. */
export const SelfSubjectReview = struct('', '', { 1: metadata, 2: msg('status', () => struct('', '', { 1: msg('userInfo', () => UserInfo) })) });

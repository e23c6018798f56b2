// The authorizer contract, as Kubernetes' authorizer.Attributes and Decision: an authorizer allows, denies, or
// has no opinion (the next one in --authorization-mode is asked); a request nobody allows is forbidden.
import type { UserInfo } from '../authn/user.ts';
import type { FieldRequirement } from '../selectors/fields.ts';

export interface Attributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection; or impersonate, bind, escalate, approve, sign, use…; for non-resource requests the lower-cased HTTP method (get, post, put, delete, head). */
  verb: string;
  resourceRequest: boolean;
  /** The request path (non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /**
   * For list, watch and deletecollection, the fieldSelector's requirements (Kubernetes' AuthorizeWithSelectors,
   * on by default since 1.32), so an authorizer can allow a scoped read such as a node's
   * `pods?fieldSelector=spec.nodeName=<node>`. Absent when there is none or it does not parse.
   */
  fieldSelector?: readonly FieldRequirement[];
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why (shown after the 403 message, and in SubjectAccessReview status.reason / evaluationError). */
  reason: string;
  evaluationError?: string;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(a: Attributes): Promise<AuthorizationResult> | AuthorizationResult;
  /** What the user may do in the namespace (SelfSubjectRulesReview); authorizers that cannot list say incomplete. */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult> | RulesResult;
}

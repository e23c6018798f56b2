// The fixed authorizers of Kubernetes' authorizerfactory: AlwaysAllow and AlwaysDeny (--authorization-mode),
// and the privileged-groups authorizer kube-apiserver puts ahead of every mode so system:masters is never
// locked out.
import type { UserInfo } from '../authn/user.ts';
import type { Attributes, AuthorizationResult, Authorizer, RulesResult } from './types.ts';

/** Allows everything; its rules are "*" for every verb, group, resource and non-resource URL. */
export const alwaysAllow: Authorizer = {
  name: 'AlwaysAllow',
  authorize: (): AuthorizationResult => ({ decision: 'allow', reason: '' }),
  rulesFor: (): RulesResult => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/**
 * Kubernetes' AlwaysDeny has no opinion (with the reason "Everything is forbidden."), so a later mode may still
 * allow, and a request nobody allows is forbidden with that reason appended.
 */
export const alwaysDeny: Authorizer = {
  name: 'AlwaysDeny',
  authorize: (): AuthorizationResult => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: (): RulesResult => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** Allows any user in one of the groups, otherwise no opinion; it lists no rules (not a rule resolver). */
export function privilegedGroups(...groups: string[]): Authorizer {
  const wanted = new Set(groups);
  return {
    name: 'PrivilegedGroups',
    authorize(a: Attributes): AuthorizationResult {
      const user: UserInfo | undefined = a.user;
      if (!user) return { decision: 'noOpinion', reason: 'Error', evaluationError: 'no user on request.' };
      return user.groups.some((g) => wanted.has(g)) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' };
    },
  };
}

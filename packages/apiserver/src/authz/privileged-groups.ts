// The authorizer kube-apiserver puts ahead of every --authorization-mode but AlwaysAllow: members of
// system:masters may do anything, whatever RBAC says (so the admin cannot lock itself out).
import { SYSTEM_MASTERS } from '../authn/user.ts';
import type { Authorizer } from './types.ts';

export function privilegedGroupsAuthorizer(groups: readonly string[] = [SYSTEM_MASTERS]): Authorizer {
  return {
    name: 'PrivilegedGroups',
    authorize(a) {
      return a.user.groups.some((g) => groups.includes(g)) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' };
    },
    rulesFor(user) {
      const all = user.groups.some((g) => groups.includes(g));
      return all
        ? { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }
        : { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}

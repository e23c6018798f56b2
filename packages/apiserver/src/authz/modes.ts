// --authorization-mode: the ordered list of authorizers, checked with Kubernetes' wording
// (BuiltInAuthorizationOptions.Validate), and the chain built from it as kube-apiserver builds it: the
// system:masters authorizer first, then each mode in order; rules (SelfSubjectRulesReview) come from the modes
// alone.
import { SYSTEM_MASTERS } from '../authn/user.ts';
import { alwaysAllow, alwaysDeny, privilegedGroups } from './always.ts';
import type { Authorizer } from './types.ts';
import { unionAuthorize, unionRulesFor } from './union.ts';

export const MODE_ALWAYS_ALLOW = 'AlwaysAllow';
export const MODE_ALWAYS_DENY = 'AlwaysDeny';
export const MODE_ABAC = 'ABAC';
export const MODE_WEBHOOK = 'Webhook';
export const MODE_RBAC = 'RBAC';
export const MODE_NODE = 'Node';

/** Kubernetes' AuthorizationModeChoices, in its order. */
export const AUTHORIZATION_MODE_CHOICES = [MODE_ALWAYS_ALLOW, MODE_ALWAYS_DENY, MODE_ABAC, MODE_WEBHOOK, MODE_RBAC, MODE_NODE] as const;
export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC' | 'Node';

export const AUTHZ_FLAGS = {
  'authorization-mode': {
    type: 'stringArray',
    default: [MODE_ALWAYS_ALLOW],
    usage: `Ordered list of plug-ins to do authorization on secure port. Defaults to AlwaysAllow if --authorization-config is not used. Comma-delimited list of: ${AUTHORIZATION_MODE_CHOICES.join(',')}.`,
  },
} as const;

/** Go's %q of a []string: ["a" "b"]. */
function quoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/**
 * The modes asked for, or Kubernetes' errors (start-up fails, as an aggregate, exit 1). ABAC and Webhook are
 * valid names whose files kemu has no flags for, so they fail as Kubernetes does when the file is not passed.
 */
export function parseAuthorizationModes(list: readonly string[]): { modes: AuthorizationMode[]; errors: string[] } {
  const errors: string[] = [];
  if (list.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of list) {
    if (!(AUTHORIZATION_MODE_CHOICES as readonly string[]).includes(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    if (mode === MODE_ABAC) errors.push("authorization-mode ABAC's authorization policy file not passed");
    if (mode === MODE_WEBHOOK) errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (new Set(list).size !== list.length) errors.push(`authorization-mode ${quoteList(list)} has mode specified more than once`);
  if (errors.length > 0) return { modes: [], errors };
  return { modes: list as AuthorizationMode[], errors };
}

/** The authorizers kemu builds elsewhere (they need the store, informers or graphs). */
export interface AuthorizerFactories {
  rbac?: () => Authorizer;
  node?: () => Authorizer;
}

/** The mode's authorizer; throws when the factory for RBAC or Node was not given. */
function authorizerFor(mode: AuthorizationMode, factories: AuthorizerFactories): Authorizer {
  switch (mode) {
    case 'AlwaysAllow':
      return alwaysAllow;
    case 'AlwaysDeny':
      return alwaysDeny;
    case 'RBAC':
    case 'Node': {
      const make = mode === 'RBAC' ? factories.rbac : factories.node;
      if (!make) throw new Error(`authorization-mode ${mode} is not available in this build`);
      return make();
    }
  }
}

/** kube-apiserver's authorizer: system:masters is allowed ahead of the modes; rules are the modes' rules. */
export function buildAuthorizer(modes: readonly AuthorizationMode[], factories: AuthorizerFactories = {}): Authorizer {
  const members = modes.map((m) => authorizerFor(m, factories));
  const chain = [privilegedGroups(SYSTEM_MASTERS), ...members];
  return {
    name: modes.join(','),
    authorize: (a) => unionAuthorize(chain, a),
    rulesFor: (user, namespace) => unionRulesFor(members, user, namespace),
  };
}

import { describe, expect, it } from 'vitest';
import { buildAuthorizer, parseAuthorizationModes } from './modes.ts';
import { attributes, JANE } from '../testing/authz-attributes.ts';
import type { Attributes, AuthorizationResult, Authorizer } from './types.ts';

const jane = JANE;
const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const attrs = (user: Attributes['user'] = jane): Attributes => attributes({ user });
const fixed = (name: string, r: AuthorizationResult): Authorizer => ({ name, authorize: () => r });

describe('--authorization-mode', () => {
  it.each<[string[], string[]]>([
    [['AlwaysAllow'], []],
    [['Node', 'RBAC'], []],
    [[], ['at least one authorization-mode must be passed']],
    [['RBAC', 'Foo'], ['authorization-mode "Foo" is not a valid mode']],
    [['RBAC', 'RBAC'], ['authorization-mode ["RBAC" "RBAC"] has mode specified more than once']],
    [['ABAC'], ["authorization-mode ABAC's authorization policy file not passed"]],
    [['Webhook', 'rbac'], ["authorization-mode Webhook's authorization config file not passed", 'authorization-mode "rbac" is not a valid mode']],
  ])('%j → %j', (list, errors) => {
    const r = parseAuthorizationModes(list);
    expect(r.errors).toEqual(errors);
    expect(r.modes).toEqual(errors.length ? [] : list);
  });

  it('the chain lets system:masters through ahead of the modes; rules come from the modes alone', async () => {
    const deny = buildAuthorizer(['AlwaysDeny']);
    expect(await deny.authorize(attrs(admin))).toEqual({ decision: 'allow', reason: '' });
    expect(await deny.authorize(attrs(jane))).toEqual({ decision: 'noOpinion', reason: 'Everything is forbidden.' });
    expect(await deny.rulesFor?.(admin, 'default')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
    const rbac = fixed('RBAC', { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "x/default"' });
    const chain = buildAuthorizer(['AlwaysDeny', 'RBAC'], { rbac: () => rbac });
    expect(await chain.authorize(attrs(jane))).toEqual({ decision: 'allow', reason: 'RBAC: allowed by RoleBinding "x/default"' });
    expect((await chain.rulesFor?.(jane, 'default'))?.incomplete).toBe(true);
    expect(() => buildAuthorizer(['Node'])).toThrow(/Node/);
  });
});

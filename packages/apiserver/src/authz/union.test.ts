import { describe, expect, it } from 'vitest';
import { alwaysAllow, alwaysDeny, privilegedGroups } from './always.ts';
import { attributes, JANE } from '../testing/authz-attributes.ts';
import type { Attributes, AuthorizationResult, Authorizer } from './types.ts';
import { unionAuthorizer } from './union.ts';

const jane = JANE;
const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const attrs = (user: Attributes['user'] = jane): Attributes => attributes({ user });
const fixed = (name: string, r: AuthorizationResult): Authorizer => ({ name, authorize: () => r });

describe('AlwaysAllow, AlwaysDeny and the privileged groups', () => {
  it('AlwaysAllow allows and lists "*" rules; AlwaysDeny has no opinion with Kubernetes\' reason', async () => {
    expect(await alwaysAllow.authorize(attrs())).toEqual({ decision: 'allow', reason: '' });
    expect(await alwaysAllow.rulesFor?.(jane, 'default')).toEqual({
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
    expect(await alwaysDeny.authorize(attrs())).toEqual({ decision: 'noOpinion', reason: 'Everything is forbidden.' });
    expect(await alwaysDeny.rulesFor?.(jane, 'default')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('system:masters is allowed, others get no opinion', async () => {
    const masters = privilegedGroups('system:masters');
    expect((await masters.authorize(attrs(admin))).decision).toBe('allow');
    expect((await masters.authorize(attrs(jane))).decision).toBe('noOpinion');
  });
});

describe('unionAuthorizer', () => {
  it('the first allow or deny wins, with its own reason and error only', async () => {
    const u = unionAuthorizer([
      fixed('a', { decision: 'noOpinion', reason: 'not mine', evaluationError: 'e1' }),
      fixed('b', { decision: 'deny', reason: 'denied by b' }),
      fixed('c', { decision: 'allow', reason: 'allowed by c' }),
    ]);
    expect(await u.authorize(attrs())).toEqual({ decision: 'deny', reason: 'denied by b' });
    const v = unionAuthorizer([fixed('a', { decision: 'noOpinion', reason: '' }), fixed('c', { decision: 'allow', reason: 'ok', evaluationError: 'partial' })]);
    expect(await v.authorize(attrs())).toEqual({ decision: 'allow', reason: 'ok', evaluationError: 'partial' });
  });

  it('no opinion from all: reasons joined with newlines, errors aggregated', async () => {
    const u = unionAuthorizer([
      fixed('a', { decision: 'noOpinion', reason: 'r1', evaluationError: 'e1' }),
      fixed('b', { decision: 'noOpinion', reason: '' }),
      fixed('c', { decision: 'noOpinion', reason: 'r3', evaluationError: 'e2' }),
      fixed('d', { decision: 'noOpinion', reason: 'r4', evaluationError: 'e1' }),
    ]);
    expect(await u.authorize(attrs())).toEqual({ decision: 'noOpinion', reason: 'r1\nr3\nr4', evaluationError: '[e1, e2]' });
    expect(await unionAuthorizer([]).authorize(attrs())).toEqual({ decision: 'noOpinion', reason: '' });
  });

  it('rules are merged; a member without rulesFor makes them incomplete', async () => {
    const lister: Authorizer = {
      name: 'x',
      authorize: () => ({ decision: 'noOpinion', reason: '' }),
      rulesFor: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }], nonResourceRules: [], incomplete: false, evaluationError: 'oops' }),
    };
    expect(await unionAuthorizer([lister, alwaysDeny]).rulesFor?.(jane, 'default')).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }],
      nonResourceRules: [],
      incomplete: false,
      evaluationError: 'oops',
    });
    const r = await unionAuthorizer([lister, fixed('webhook', { decision: 'noOpinion', reason: '' })]).rulesFor?.(jane, 'default');
    expect(r?.incomplete).toBe(true);
  });
});


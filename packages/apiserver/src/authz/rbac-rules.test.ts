// The one rule matcher (RBAC and the Node authorizer's NodeRules) against Kubernetes' RuleAllows cases.
import { describe, expect, it } from 'vitest';
import type { Attributes } from './types.ts';
import { ruleAllows } from './rbac-rules.ts';

const user = { username: 'u', groups: [] };
const res = (verb: string, apiGroup: string, resource: string, subresource = '', name = ''): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  path: '',
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource,
  namespace: 'default',
  name,
});
const url = (verb: string, path: string): Attributes => ({ ...res(verb, '', ''), resourceRequest: false, path });

describe('ruleAllows (rbac.RuleAllows)', () => {
  it('matches verbs, groups, resource/subresource, */subresource, * and resource names', () => {
    const r = { verbs: ['get'], apiGroups: [''], resources: ['pods/status'], resourceNames: [] };
    expect(ruleAllows(res('get', '', 'pods', 'status'), r)).toBe(true);
    expect(ruleAllows(res('get', '', 'pods'), r)).toBe(false);
    expect(ruleAllows(res('get', 'apps', 'pods', 'status'), r)).toBe(false);
    expect(ruleAllows(res('list', '', 'pods', 'status'), r)).toBe(false);
    const any = { verbs: ['*'], apiGroups: ['*'], resources: ['*/scale'], resourceNames: ['web'] };
    expect(ruleAllows(res('update', 'apps', 'deployments', 'scale', 'web'), any)).toBe(true);
    expect(ruleAllows(res('update', 'apps', 'deployments', 'scale', 'db'), any)).toBe(false);
    expect(ruleAllows(res('update', 'apps', 'deployments', '', 'web'), any)).toBe(false);
    expect(ruleAllows(res('get', '', 'pods', 'log'), { verbs: ['get'], apiGroups: [''], resources: ['*'], resourceNames: [] })).toBe(true);
  });

  it('matches non-resource URLs exactly, by * and by a trailing-* prefix, never a resource rule', () => {
    const r = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    expect(ruleAllows(url('get', '/healthz'), r)).toBe(true);
    expect(ruleAllows(url('get', '/healthz/etcd'), r)).toBe(false);
    expect(ruleAllows(url('get', '/apis/apps/v1'), r)).toBe(true);
    expect(ruleAllows(url('post', '/healthz'), r)).toBe(false);
    expect(ruleAllows(url('get', '/healthz'), { verbs: ['get'], apiGroups: ['*'], resources: ['*'], resourceNames: [] })).toBe(false);
    expect(ruleAllows(res('get', '', 'pods'), r)).toBe(false);
  });
});

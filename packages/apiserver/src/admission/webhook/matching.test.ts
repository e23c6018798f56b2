// Which requests a webhook's rules match: operations, groups, versions, resources with subresources, scope.
import { describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import type { AdmissionAttributes } from '../types.ts';
import { ruleMatches } from './matching.ts';

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({ operation: 'UPDATE', resource: R.pods, namespace: 'default', name: 'p', dryRun: false, ...over });
const rule = (resources: string[], extra: Record<string, unknown> = {}) => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources, ...extra });

describe('webhook rules', () => {
  it.each([
    { resources: ['pods'], sub: undefined, want: true },
    { resources: ['pods'], sub: 'status', want: false },
    { resources: ['pods/status'], sub: 'status', want: true },
    { resources: ['pods/status'], sub: undefined, want: false },
    { resources: ['pods/*'], sub: 'binding', want: true },
    // As Kubernetes' rules.Matcher: a '*' subresource also matches the main resource.
    { resources: ['pods/*'], sub: undefined, want: true },
    { resources: ['*/status'], sub: 'status', want: true },
    { resources: ['*'], sub: undefined, want: true },
    { resources: ['*'], sub: 'status', want: false },
    { resources: ['*/*'], sub: 'status', want: true },
    { resources: ['deployments'], sub: undefined, want: false },
  ])('$resources on pods/$sub: $want', ({ resources, sub, want }) => {
    expect(ruleMatches(rule(resources), attrs(sub ? { subresource: sub } : {}))).toBe(want);
  });

  it('operations, groups, versions and scope', () => {
    expect(ruleMatches(rule(['pods'], { operations: ['CREATE'] }), attrs())).toBe(false);
    expect(ruleMatches(rule(['pods'], { operations: ['UPDATE', 'DELETE'] }), attrs())).toBe(true);
    expect(ruleMatches(rule(['pods'], { apiGroups: ['apps'] }), attrs())).toBe(false);
    expect(ruleMatches(rule(['pods'], { apiGroups: [''], apiVersions: ['v1beta1'] }), attrs())).toBe(false);
    expect(ruleMatches(rule(['pods'], { scope: 'Cluster' }), attrs())).toBe(false);
    expect(ruleMatches(rule(['pods'], { scope: 'Namespaced' }), attrs())).toBe(true);
    expect(ruleMatches(rule(['*'], { scope: 'Namespaced' }), attrs({ resource: R.namespaces, namespace: 'ns', name: 'ns' }))).toBe(false);
    expect(ruleMatches(rule(['*'], { scope: 'Cluster' }), attrs({ resource: R.nodes, namespace: undefined, name: 'n' }))).toBe(true);
  });
});

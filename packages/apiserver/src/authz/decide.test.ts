import { describe, expect, it } from 'vitest';
import { authorizationOutcome } from './decide.ts';
import { attributes } from '../testing/authz-attributes.ts';

const a = attributes({ verb: 'get', path: '/api/v1/namespaces/default/secrets/s', resource: 'secrets', name: 's', user: { username: 'jane', groups: [] } });

describe('authorizationOutcome', () => {
  it('an allow passes even with an evaluation error, annotated allow', () => {
    expect(authorizationOutcome({ decision: 'allow', reason: 'RBAC: ok', evaluationError: 'x' }, a, '/api/v1/namespaces/default/secrets/s')).toEqual({
      kind: 'allow',
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'RBAC: ok' },
    });
  });

  it('no allow: Forbidden with the reason, annotated forbid', () => {
    const o = authorizationOutcome({ decision: 'noOpinion', reason: 'Everything is forbidden.' }, a, '/x');
    expect(o.kind).toBe('forbidden');
    if (o.kind !== 'forbidden') return;
    expect(o.error.message).toBe('secrets "s" is forbidden: User "jane" cannot get resource "secrets" in API group "" in the namespace "default": Everything is forbidden.');
    expect(o.annotations).toEqual({ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'Everything is forbidden.' });
  });

  it('no allow and an evaluation error: a plain-text 500', () => {
    const o = authorizationOutcome({ decision: 'deny', reason: '', evaluationError: 'role <x> not found' }, a, '/api/v1/pods?x="y"');
    expect(o).toEqual({ kind: 'error', code: 500, text: 'Internal Server Error: "/api/v1/pods?x=\\"y\\"": role &lt;x&gt; not found\n', annotations: { 'authorization.k8s.io/reason': 'internal error' } });
  });
});

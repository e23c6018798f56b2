import { describe, expect, it } from 'vitest';
import { forbiddenError } from './forbidden.ts';
import { attributes } from '../testing/authz-attributes.ts';
import type { Attributes } from './types.ts';

const base = attributes();

describe('forbiddenError', () => {
  it('a namespaced list: the issue\'s words, details naming the resource', () => {
    const s = forbiddenError(base, '').toStatus();
    expect(s).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { kind: 'pods' },
      code: 403,
    });
  });

  it('a named object in a group, with a subresource and a reason', () => {
    const a = { ...base, verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' };
    const s = forbiddenError(a, 'RBAC: no rule').toStatus();
    expect(s.message).toBe('deployments.apps "web" is forbidden: User "jane" cannot update resource "deployments/scale" in API group "apps" in the namespace "default": RBAC: no rule');
    expect(s.details).toEqual({ group: 'apps', kind: 'deployments', name: 'web' });
  });

  it('cluster scope, an empty user name and HTML-like characters', () => {
    const a = { ...base, user: { username: '', groups: [] }, verb: 'get', resource: 'nodes', name: 'n<1>', namespace: '' };
    expect(forbiddenError(a, 'x<y').message).toBe('nodes "n<1>" is forbidden: User "" cannot get resource "nodes" in API group "" at the cluster scope: x<y');
    const b = { ...base, user: { username: 'a&b', groups: [] }, verb: 'get', resource: 'nodes', namespace: '' };
    expect(forbiddenError(b, '').message).toBe('nodes is forbidden: User "a&amp;b" cannot get resource "nodes" in API group "" at the cluster scope');
  });

  it('a non-resource path: "forbidden:" and empty details', () => {
    const a: Attributes = { ...base, resourceRequest: false, path: '/foo', verb: 'get', apiGroup: '', apiVersion: '', resource: '', namespace: '' };
    const s = forbiddenError(a, 'Everything is forbidden.').toStatus();
    expect(s.message).toBe('forbidden: User "jane" cannot get path "/foo": Everything is forbidden.');
    expect(s.details).toEqual({});
    expect(s.code).toBe(403);
  });

  it('quotes as Go does', () => {
    const a = { ...base, user: { username: 'say "hi"\n', groups: [] } };
    expect(forbiddenError(a, '').message).toBe('pods is forbidden: User "say \\"hi\\"\\n" cannot list resource "pods" in API group "" in the namespace "default"');
  });
});

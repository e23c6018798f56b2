import { describe, expect, it } from 'vitest';
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { isForbiddenNodeLabel, nodeNameOf, nodeRestrictionPlugin } from './node-restriction.ts';
import type { AdmissionAttributes, UserInfo } from './types.ts';

const node1: UserInfo = { username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };
const admin: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

const nodeObj = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): KubeObject => ({ metadata: { name, labels }, spec: { taints } });
const podObj = (nodeName: string, mirror = false): KubeObject => ({
  metadata: { name: 'p', namespace: 'default', ...(mirror ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}) },
  spec: { nodeName, containers: [{ name: 'c', image: 'x' }] },
});

interface Case {
  case: string;
  user?: UserInfo;
  op: AdmissionAttributes['operation'];
  resource: ResourceInfo;
  sub?: string;
  name: string;
  namespace?: string;
  object?: KubeObject;
  old?: KubeObject;
  refused?: string;
}

const cases: Case[] = [
  { case: 'a node updates its own Node', user: node1, op: 'UPDATE', resource: R.nodes, name: 'node-1', object: nodeObj('node-1', { a: 'b' }), old: nodeObj('node-1') },
  { case: 'a node may not touch another Node', user: node1, op: 'UPDATE', resource: R.nodes, name: 'node-2', object: nodeObj('node-2'), old: nodeObj('node-2'), refused: 'nodes "node-2" is forbidden: node "node-1" is not allowed to modify node "node-2"' },
  { case: 'nor set node-restriction labels on itself', user: node1, op: 'UPDATE', resource: R.nodes, name: 'node-1', object: nodeObj('node-1', { 'node-restriction.kubernetes.io/tier': 'gold' }), old: nodeObj('node-1'), refused: 'nodes "node-1" is forbidden: node "node-1" is not allowed to modify labels: node-restriction.kubernetes.io/tier' },
  { case: 'nor register with them', user: node1, op: 'CREATE', resource: R.nodes, name: 'node-1', object: nodeObj('node-1', { 'node-restriction.kubernetes.io/a': '1', 'kubernetes.io/hostname': 'node-1' }), refused: 'nodes "node-1" is forbidden: node "node-1" is not allowed to set the following labels: node-restriction.kubernetes.io/a' },
  { case: 'nor change its taints', user: node1, op: 'UPDATE', resource: R.nodes, name: 'node-1', object: nodeObj('node-1', {}, [{ key: 'k', effect: 'NoSchedule' }]), old: nodeObj('node-1'), refused: 'nodes "node-1" is forbidden: node "node-1" is not allowed to modify taints' },
  { case: 'an administrator may do all that', user: admin, op: 'UPDATE', resource: R.nodes, name: 'node-2', object: nodeObj('node-2', { 'node-restriction.kubernetes.io/tier': 'gold' }), old: nodeObj('node-2') },
  { case: 'no user (unauthenticated server): nothing checked', op: 'UPDATE', resource: R.nodes, name: 'node-2', object: nodeObj('node-2'), old: nodeObj('node-2') },
  { case: 'status of a pod bound to itself', user: node1, op: 'UPDATE', resource: R.pods, sub: 'status', name: 'p', namespace: 'default', object: podObj('node-1'), old: podObj('node-1') },
  { case: 'status of a pod bound elsewhere', user: node1, op: 'UPDATE', resource: R.pods, sub: 'status', name: 'p', namespace: 'default', object: podObj('node-2'), old: podObj('node-2'), refused: 'pods "p" is forbidden: node "node-1" can only update pod status for pods with spec.nodeName set to itself' },
  { case: 'a mirror pod bound to itself', user: node1, op: 'CREATE', resource: R.pods, name: 'p', namespace: 'default', object: podObj('node-1', true) },
  { case: 'a plain pod', user: node1, op: 'CREATE', resource: R.pods, name: 'p', namespace: 'default', object: podObj('node-1'), refused: 'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods' },
  { case: 'a mirror pod for another node', user: node1, op: 'CREATE', resource: R.pods, name: 'p', namespace: 'default', object: podObj('node-2', true), refused: 'pods "p" is forbidden: node "node-1" can only create pods with spec.nodeName set to itself' },
  { case: 'deleting a pod bound elsewhere', user: node1, op: 'DELETE', resource: R.pods, name: 'p', namespace: 'default', old: podObj('node-2'), refused: 'pods "p" is forbidden: node "node-1" can only delete pods with spec.nodeName set to itself' },
  { case: 'updating a pod', user: node1, op: 'UPDATE', resource: R.pods, name: 'p', namespace: 'default', object: podObj('node-1'), old: podObj('node-1'), refused: 'pods "p" is forbidden: unexpected operation "UPDATE", node "node-1" can only create and delete mirror pods' },
  { case: "another node's lease", user: node1, op: 'UPDATE', resource: R.leases, name: 'node-2', namespace: 'kube-node-lease', object: { metadata: { name: 'node-2' } }, refused: 'leases.coordination.k8s.io "node-2" is forbidden: can only access node lease with the same name as the requesting node' },
  { case: 'its own lease', user: node1, op: 'UPDATE', resource: R.leases, name: 'node-1', namespace: 'kube-node-lease', object: { metadata: { name: 'node-1' } } },
];

describe('NodeRestriction', () => {
  it.each(cases)('$case', async (c) => {
    const attrs: AdmissionAttributes = {
      operation: c.op,
      resource: c.resource,
      name: c.name,
      dryRun: false,
      ...(c.sub ? { subresource: c.sub } : {}),
      ...(c.namespace ? { namespace: c.namespace } : {}),
      ...(c.object ? { object: c.object } : {}),
      ...(c.old ? { oldObject: c.old } : {}),
      ...(c.user ? { userInfo: c.user } : {}),
    };
    const run = async () => nodeRestrictionPlugin.admit?.(attrs, {});
    if (!c.refused) return run();
    const err = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(403);
    expect((err as StatusError).message).toBe(c.refused);
  });

  it('knows a node user only with the system:nodes group', () => {
    expect(nodeNameOf(node1)).toBe('node-1');
    expect(nodeNameOf({ username: 'system:node:n', groups: [] })).toBeUndefined();
    expect(nodeNameOf(admin)).toBeUndefined();
  });

  it.each([
    ['node-restriction.kubernetes.io/x', true],
    ['example.kubernetes.io/x', true],
    ['kubernetes.io/hostname', false],
    ['node.kubernetes.io/instance-type', false],
    ['node-role.kubernetes.io/worker', true],
    ['example.com/x', false],
    ['plain', false],
  ] as const)('label %s forbidden: %s', (key, want) => {
    expect(isForbiddenNodeLabel(key)).toBe(want);
  });
});

describe('NodeRestriction: ServiceAccount tokens a node asks for', () => {
  const pods: Record<string, KubeObject> = {
    mine: { metadata: { name: 'mine', namespace: 'default', uid: 'mine-uid' }, spec: { nodeName: 'node-1' } },
    theirs: { metadata: { name: 'theirs', namespace: 'default', uid: 'theirs-uid' }, spec: { nodeName: 'node-2' } },
  };
  const ctx = { getPod: async (_ns: string, name: string) => pods[name] };
  const tokenRequest = (boundObjectRef: unknown): AdmissionAttributes => ({
    operation: 'CREATE',
    resource: R.serviceaccounts,
    subresource: 'token',
    name: 'sa',
    namespace: 'default',
    dryRun: false,
    userInfo: node1,
    object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'sa' }, spec: { audiences: [], boundObjectRef } },
  });
  const ref = { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'mine-uid' };
  const refusal = async (attrs: AdmissionAttributes): Promise<StatusError | undefined> =>
    Promise.resolve(nodeRestrictionPlugin.admit?.(attrs, ctx)).then(
      () => undefined,
      (e: unknown) => e as StatusError,
    );

  it('allows a token bound to a pod running on the node', async () => {
    expect(await refusal(tokenRequest(ref))).toBeUndefined();
  });

  it.each([
    ['no binding', undefined, 403, 'serviceaccounts "sa" is forbidden: node requested token not bound to a pod'],
    ['a Secret binding', { ...ref, kind: 'Secret' }, 403, 'serviceaccounts "sa" is forbidden: node requested token not bound to a pod'],
    ['no uid', { ...ref, uid: '' }, 403, 'serviceaccounts "sa" is forbidden: node requested token with a pod binding without a uid'],
    [
      'a stale uid',
      { ...ref, uid: 'old' },
      403,
      'serviceaccounts "sa" is forbidden: the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
    ],
    ['a pod on another node', { ...ref, name: 'theirs', uid: 'theirs-uid' }, 403, 'serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node'],
    ['a missing pod', { ...ref, name: 'gone' }, 404, 'pods "gone" not found'],
  ] as const)('refuses %s', async (_case, boundRef, code, message) => {
    const err = await refusal(tokenRequest(boundRef));
    expect(err).toBeInstanceOf(StatusError);
    expect(err?.code).toBe(code);
    expect(err?.message).toBe(message);
  });

  it('lets other users and other operations through', async () => {
    const { userInfo: _u, ...anonymous } = tokenRequest(undefined);
    expect(await refusal({ ...anonymous, userInfo: admin })).toBeUndefined();
    expect(await refusal({ ...tokenRequest(undefined), operation: 'UPDATE', subresource: undefined } as AdmissionAttributes)).toBeUndefined();
  });
});

// The Node authorizer over a real watch cache: the decisions follow pods being created, deleted and
// recreated elsewhere, catch up after more pod events than the cache's history holds, and survive the
// Cacher rebuilding itself.
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UserInfo } from '../../authn/user.ts';
import { Cacher } from '../../watch/cacher.ts';
import type { Attributes } from '../types.ts';
import { NodeAuthorizer } from './node-authorizer.ts';
import { nodeGraphFromCacher } from './node-graph-from-cacher.ts';
import type { SyncedNodeGraph } from './pod-feed.ts';

const node = (name: string): UserInfo => ({ username: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] });

const get = (user: UserInfo, resource: string, name: string, subresource = '', verb = 'get'): Attributes => ({
  user,
  verb,
  resourceRequest: true,
  path: `/api/v1/namespaces/default/${resource}/${name}`,
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource,
  namespace: 'default',
  name,
});

const podJSON = (name: string, nodeName: string | undefined, spec: Record<string, unknown> = {}, uid = `${name}-uid`): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid },
    spec: { ...(nodeName ? { nodeName } : {}), serviceAccountName: 'default', containers: [{ name: 'c', image: 'nginx' }], ...spec },
  });

const key = (name: string): string => `/registry/pods/default/${name}`;
const allow = { decision: 'allow', reason: '' };
const noRelation = (n: string) => ({ decision: 'noOpinion', reason: `no relationship found between node '${n}' and this object` });

describe('nodeGraphFromCacher', () => {
  let backend: MemoryBackend;
  let cacher: Cacher;
  let graph: SyncedNodeGraph;
  let az: NodeAuthorizer;

  async function start(historySize = 1000): Promise<void> {
    cacher = new Cacher({ backend, logger: silentLogger(), historySize });
    await cacher.start();
    graph = nodeGraphFromCacher(cacher);
    az = new NodeAuthorizer(graph);
  }
  /** Writes, then waits until the watch cache has them (as a request after the write would see them). */
  async function write(op: () => Promise<{ modRevision: number }>): Promise<void> {
    const kv = await op();
    await cacher.waitFor(kv.modRevision);
  }

  beforeEach(async () => {
    backend = new MemoryBackend();
    await start();
  });
  afterEach(() => cacher.stop());

  it('a node reads the secret its pod uses, not one it does not; the pod deleted, access is gone', async () => {
    await write(() => backend.create(key('web'), podJSON('web', 'n1', { volumes: [{ name: 'tls', secret: { secretName: 'web-tls' } }] })));
    await write(() => backend.create(key('db'), podJSON('db', 'n2', { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'db-password' } }] }] })));
    expect(az.authorize(get(node('n1'), 'secrets', 'web-tls'))).toEqual(allow);
    expect(az.authorize(get(node('n1'), 'secrets', 'db-password'))).toEqual(noRelation('n1'));
    expect(az.authorize(get(node('n2'), 'secrets', 'db-password'))).toEqual(allow);
    // Another node has no opinion about n1's secret.
    expect(az.authorize(get(node('n2'), 'secrets', 'web-tls'))).toEqual(noRelation('n2'));
    expect(az.authorize(get(node('n3'), 'secrets', 'web-tls'))).toEqual(noRelation('n3'));

    await write(() => backend.delete(key('web')));
    expect(az.authorize(get(node('n1'), 'secrets', 'web-tls'))).toEqual(noRelation('n1'));
    expect(az.authorize(get(node('n1'), 'pods', 'web'))).toEqual(noRelation('n1'));
    expect(graph.rebuilds).toBe(1); // the first decision built it; the rest caught up from the cache's events
  });

  it('a pod bound later, and recreated under the same name on another node, moves the access with it', async () => {
    await write(() => backend.create(key('web'), podJSON('web', undefined, { volumes: [{ name: 'c', configMap: { name: 'web-config' } }] })));
    expect(az.authorize(get(node('n1'), 'configmaps', 'web-config'))).toEqual(noRelation('n1'));
    const bound = await backend.get(key('web'));
    await write(() => backend.update(key('web'), podJSON('web', 'n1', { volumes: [{ name: 'c', configMap: { name: 'web-config' } }] }), bound?.modRevision));
    expect(az.authorize(get(node('n1'), 'configmaps', 'web-config'))).toEqual(allow);

    await write(() => backend.delete(key('web')));
    await write(() => backend.create(key('web'), podJSON('web', 'n2', { volumes: [{ name: 'c', configMap: { name: 'web-config' } }] }, 'second-uid')));
    expect(az.authorize(get(node('n1'), 'configmaps', 'web-config'))).toEqual(noRelation('n1'));
    expect(az.authorize(get(node('n2'), 'configmaps', 'web-config'))).toEqual(allow);
  });

  it('reaches a configmap through a projected volume and lets the node create tokens for its pod’s service account', async () => {
    await write(() =>
      backend.create(
        key('api'),
        podJSON('api', 'n1', {
          serviceAccountName: 'api-sa',
          volumes: [
            {
              name: 'kube-api-access-7xk2p',
              projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }, { configMap: { name: 'kube-root-ca.crt' } }] },
            },
          ],
        }),
      ),
    );
    expect(az.authorize(get(node('n1'), 'configmaps', 'kube-root-ca.crt'))).toEqual(allow);
    expect(az.authorize(get(node('n1'), 'serviceaccounts', 'api-sa', 'token', 'create'))).toEqual(allow);
    expect(az.authorize(get(node('n1'), 'serviceaccounts', 'default', 'token', 'create'))).toEqual(noRelation('n1'));
    expect(az.authorize(get(node('n2'), 'serviceaccounts', 'api-sa', 'token', 'create'))).toEqual(noRelation('n2'));
  });

  it('rebuilds from the cache when more pod events happened than its history holds', async () => {
    cacher.stop();
    await start(20);
    await write(() => backend.create(key('p0'), podJSON('p0', 'n1', { imagePullSecrets: [{ name: 'pull-0' }] })));
    expect(az.authorize(get(node('n1'), 'secrets', 'pull-0'))).toEqual(allow);
    for (let i = 1; i <= 50; i++) await write(() => backend.create(key(`p${i}`), podJSON(`p${i}`, 'n1', { imagePullSecrets: [{ name: `pull-${i}` }] })));
    await write(() => backend.delete(key('p0')));
    expect(az.authorize(get(node('n1'), 'secrets', 'pull-50'))).toEqual(allow);
    expect(az.authorize(get(node('n1'), 'secrets', 'pull-0'))).toEqual(noRelation('n1'));
    expect(graph.rebuilds).toBe(2);
    expect(graph.graph.stats()).toEqual({ pods: 50, nodes: 1, objects: 51 }); // 50 pull secrets + the default service account
  });

  it('follows the Cacher when it rebuilds its caches (after a store watch failure) with a full rebuild', async () => {
    await write(() => backend.create(key('web'), podJSON('web', 'n1', { imagePullSecrets: [{ name: 'pull' }] })));
    expect(az.authorize(get(node('n1'), 'secrets', 'pull'))).toEqual(allow);
    await backend.delete(key('web'));
    await backend.create(key('other'), podJSON('other', 'n1', { imagePullSecrets: [{ name: 'pull-2' }] }));
    // What the Cacher does after its store watch fails: a fresh list into new per-resource caches.
    await cacher.start();
    expect(az.authorize(get(node('n1'), 'secrets', 'pull'))).toEqual(noRelation('n1'));
    expect(az.authorize(get(node('n1'), 'secrets', 'pull-2'))).toEqual(allow);
    expect(graph.rebuilds).toBe(2);
  });

  it('kept up in the background, the graph is built before the first decision and never rebuilt inline', async () => {
    cacher.stop();
    cacher = new Cacher({ backend, logger: silentLogger(), historySize: 20 });
    graph = nodeGraphFromCacher(cacher, { keepUpMs: 5 });
    await cacher.start();
    az = new NodeAuthorizer(graph);
    try {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 15; i++) await write(() => backend.create(key(`r${round}-${i}`), podJSON(`r${round}-${i}`, 'n1', { imagePullSecrets: [{ name: `pull-${round}-${i}` }] })));
        await vi.waitFor(() => expect(graph.graph.stats().pods).toBe(15 * (round + 1)), { timeout: 5000, interval: 5 });
      }
      expect(az.authorize(get(node('n1'), 'secrets', 'pull-2-14'))).toEqual(allow);
      expect(graph.rebuilds).toBe(1); // 45 pod events with a history of 20, all applied from the ring
    } finally {
      graph.stopKeepUp();
    }
  });
});

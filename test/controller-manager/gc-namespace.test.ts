// Garbage collection policies and namespace deletion through the real apiserver and kubectl:
// --cascade=orphan keeps the pods (without their ownerReference), --cascade=foreground removes the pods
// before the ReplicaSet, and deleting a namespace removes its content and then the namespace itself. A new
// namespace gets its "default" ServiceAccount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { R, type Namespace, type Pod, type ReplicaSet, type ServiceAccount } from '@kemu/api';
import { startEnv, waitFor, type Env } from './cluster.ts';

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  await env.startManager('kcm-0');
}, 60_000);
afterAll(async () => env?.stop());

function rsManifest(name: string, ns = 'default'): string {
  return [
    'apiVersion: apps/v1',
    'kind: ReplicaSet',
    `metadata: {name: ${name}, namespace: ${ns}}`,
    'spec:',
    '  replicas: 2',
    `  selector: {matchLabels: {app: ${name}}}`,
    '  template:',
    `    metadata: {labels: {app: ${name}}}`,
    '    spec: {containers: [{name: c, image: nginx}]}',
    '',
  ].join('\n');
}

async function applyRS(name: string, ns = 'default'): Promise<ReplicaSet> {
  const file = path.join(env.dir, `${name}.yaml`);
  writeFileSync(file, rsManifest(name, ns));
  await env.kubectl('apply', '-f', file);
  await waitFor(`2 pods of ${name}`, async () => (await podsOf(name, ns)).length === 2, 30_000, 100);
  return env.client.get<ReplicaSet>(R.replicasets, ns, name);
}

async function podsOf(app: string, ns = 'default'): Promise<Pod[]> {
  return (await env.client.list<Pod>(R.pods, ns, { labelSelector: `app=${app}` })).items;
}

describe('garbage collection with kubectl delete --cascade', () => {
  it('orphan keeps the pods and removes their ownerReference', async () => {
    await applyRS('keep');
    await env.kubectl('delete', 'rs', 'keep', '--cascade=orphan');
    await waitFor('the ReplicaSet to go', async () => (await env.client.list(R.replicasets, 'default')).items.every((r) => r.metadata.name !== 'keep'), 30_000, 100);
    const pods = await waitFor('pods released', async () => {
      const ps = await podsOf('keep');
      return ps.length === 2 && ps.every((p) => !p.metadata.ownerReferences?.length) ? ps : undefined;
    }, 30_000, 100);
    expect(pods).toHaveLength(2);
  }, 60_000);

  it('foreground deletes the pods before the ReplicaSet', async () => {
    const rs = await applyRS('gone');
    let podsWhenOwnerVanished = -1;
    const ctrl = new AbortController();
    const watching = (async () => {
      for await (const ev of env.client.watch<ReplicaSet>(R.replicasets, 'default', { resourceVersion: rs.metadata.resourceVersion, signal: ctrl.signal })) {
        if (ev.type === 'DELETED' && ev.object.metadata.name === 'gone') {
          podsWhenOwnerVanished = (await podsOf('gone')).length;
          return;
        }
      }
    })().catch(() => undefined);
    await env.kubectl('delete', 'rs', 'gone', '--cascade=foreground', '--timeout=30s');
    await waitFor('the ReplicaSet DELETED event', () => podsWhenOwnerVanished >= 0, 30_000, 50);
    ctrl.abort();
    await watching;
    expect(podsWhenOwnerVanished).toBe(0);
    expect(await podsOf('gone')).toEqual([]);
  }, 60_000);
});

describe('namespaces', () => {
  it('a new namespace gets a default ServiceAccount; deleting it removes all content and then the namespace', async () => {
    await env.kubectl('create', 'namespace', 'team');
    await waitFor('default ServiceAccount', async () => (await env.client.list<ServiceAccount>(R.serviceaccounts, 'team')).items.some((s) => s.metadata.name === 'default'), 30_000, 100);
    await applyRS('app', 'team');
    await env.kubectl('create', 'configmap', 'settings', '-n', 'team', '--from-literal=a=b');
    await env.kubectl('delete', 'namespace', 'team', '--wait=false');
    await waitFor('the namespace to be gone', async () => {
      try {
        await env.client.get<Namespace>(R.namespaces, undefined, 'team');
        return false;
      } catch (e) {
        return (e as { code?: number }).code === 404;
      }
    }, 60_000, 200);
    expect((await env.client.list(R.pods, 'team')).items).toEqual([]);
    expect((await env.client.list(R.configmaps, 'team')).items).toEqual([]);
  }, 90_000);
});

// replicationcontroller-controller: the ReplicaSet controller run over ReplicationControllers (label-map
// selector, v1 owner references, the /status of replicationcontrollers).
import { afterEach, describe, expect, it } from 'vitest';
import { R, type Pod, type ReplicationController } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { REPLICATION_CONTROLLER_KIND, ReplicaSetController } from './replicaset.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function rcObj(name: string, replicas: number): ReplicationController {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name, namespace: 'default' },
    spec: { replicas, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

describe('replicationcontroller-controller', () => {
  it('keeps spec.replicas pods owned by the ReplicationController and reports status', async () => {
    const env = fakeContext();
    envs.push(env);
    const c = new ReplicaSetController(env.ctx, REPLICATION_CONTROLLER_KIND);
    expect(c.name).toBe('replicationcontroller-controller');
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    const rc = await env.api.create(R.replicationcontrollers, 'default', rcObj('web', 3));
    await settle();
    const pods = () => env.api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp);
    expect(pods()).toHaveLength(3);
    expect(pods()[0]!.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect((await env.api.get<ReplicationController>(R.replicationcontrollers, 'default', 'web')).status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
    const cur = await env.api.get<ReplicationController>(R.replicationcontrollers, 'default', 'web');
    await env.api.update(R.replicationcontrollers, 'default', { ...cur, spec: { ...cur.spec, replicas: 1 } });
    await settle();
    expect(pods()).toHaveLength(1);
  });
});

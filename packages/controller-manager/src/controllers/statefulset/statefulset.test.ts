import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type ControllerRevision, type Pod, type StatefulSet } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { fakeKubelet } from '../../testing/kubelet.ts';
import { StatefulSetController } from './index.ts';

function sts(replicas: number, extra: Partial<StatefulSet['spec']> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'nginx',
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.0' }] } },
      ...extra,
    },
  };
}

const www = { metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function start(kubelet = true, argv: string[] = []) {
  const env = fakeContext(argv);
  envs.push(env);
  if (kubelet) fakeKubelet(env.api, env.clock);
  const c = new StatefulSetController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

const pods = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp);
const names = (env: FakeEnv) => pods(env).map((p) => p.metadata.name).sort();
const get = (env: FakeEnv) => env.api.get<StatefulSet>(R.statefulsets, 'default', 'web');
const eventsOf = (env: FakeEnv, reason: string) => env.recorder.events.filter((e) => e.reason === reason).map((e) => e.message);

async function ready(env: FakeEnv, name: string): Promise<void> {
  const p = await env.api.get<Pod>(R.pods, 'default', name);
  await env.api.updateStatus(R.pods, 'default', { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(env.clock.now()) }] } });
  await settle();
}

describe('statefulset-controller', () => {
  it('OrderedReady: web-1 only once web-0 is Running and Ready; stable hostname, subdomain and labels', async () => {
    const env = await start(false);
    await env.api.create(R.statefulsets, 'default', sts(3));
    await settle();
    expect(names(env)).toEqual(['web-0']);
    await settle();
    expect(names(env)).toEqual(['web-0']);
    await ready(env, 'web-0');
    expect(names(env)).toEqual(['web-0', 'web-1']);
    await ready(env, 'web-1');
    await ready(env, 'web-2');
    expect(names(env)).toEqual(['web-0', 'web-1', 'web-2']);
    const p1 = await env.api.get<Pod>(R.pods, 'default', 'web-1');
    expect(p1.spec.hostname).toBe('web-1');
    expect(p1.spec.subdomain).toBe('nginx');
    const status = (await get(env)).status;
    expect(p1.metadata.labels).toMatchObject({ app: 'nginx', 'statefulset.kubernetes.io/pod-name': 'web-1', 'apps.kubernetes.io/pod-index': '1', 'controller-revision-hash': status?.updateRevision });
    expect(status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1 });
    expect(status?.currentRevision).toBe(status?.updateRevision);
    expect(eventsOf(env, 'SuccessfulCreate')).toEqual(['web-0', 'web-1', 'web-2'].map((n) => `create Pod ${n} in StatefulSet web successful`));
  });

  it('Parallel creates every ordinal at once; ordinals.start shifts the names', async () => {
    const env = await start(false);
    await env.api.create(R.statefulsets, 'default', sts(3, { podManagementPolicy: 'Parallel', ordinals: { start: 5 } }));
    await settle();
    expect(names(env)).toEqual(['web-5', 'web-6', 'web-7']);
  });

  it('scales down in reverse ordinal order, one at a time', async () => {
    const env = await start();
    await env.api.create(R.statefulsets, 'default', sts(4));
    await settle(200);
    expect(names(env)).toEqual(['web-0', 'web-1', 'web-2', 'web-3']);
    const cur = await get(env);
    await env.api.update(R.statefulsets, 'default', { ...cur, spec: { ...cur.spec, replicas: 1 } });
    await settle(200);
    expect(names(env)).toEqual(['web-0']);
    expect(eventsOf(env, 'SuccessfulDelete')).toEqual(['web-3', 'web-2', 'web-1'].map((n) => `delete Pod ${n} in StatefulSet web successful`));
  });

  it('rolls an update down to the partition, then completes it; revisions hold the template patch', async () => {
    const env = await start();
    await env.api.create(R.statefulsets, 'default', sts(3));
    await settle(200);
    const before = (await get(env)).status?.currentRevision;
    let cur = await get(env);
    cur.spec.template.spec.containers[0]!.image = 'nginx:2.0';
    cur.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 2 } };
    await env.api.update(R.statefulsets, 'default', cur);
    await settle(200);
    const image = async (n: string) => (await env.api.get<Pod>(R.pods, 'default', n)).spec.containers[0]?.image;
    expect([await image('web-0'), await image('web-1'), await image('web-2')]).toEqual(['nginx:1.0', 'nginx:1.0', 'nginx:2.0']);
    let st = (await get(env)).status;
    expect(st).toMatchObject({ currentRevision: before, updatedReplicas: 1, currentReplicas: 2 });
    expect(st?.updateRevision).not.toBe(before);
    cur = await get(env);
    cur.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    await env.api.update(R.statefulsets, 'default', cur);
    await settle(300);
    expect([await image('web-0'), await image('web-1'), await image('web-2')]).toEqual(['nginx:2.0', 'nginx:2.0', 'nginx:2.0']);
    st = (await get(env)).status;
    expect(st?.currentRevision).toBe(st?.updateRevision);
    expect(eventsOf(env, 'SuccessfulDelete')).toEqual(['web-2', 'web-1', 'web-0'].map((n) => `delete Pod ${n} in StatefulSet web successful`));
    const revs = env.api.all<ControllerRevision>(R.controllerrevisions, 'default').sort((a, b) => a.revision - b.revision);
    expect(revs.map((r) => r.revision)).toEqual([1, 2]);
    expect(revs[1]?.metadata.name).toBe(st?.updateRevision);
    expect(revs[1]?.metadata.labels).toMatchObject({ app: 'nginx' });
    expect(revs[1]?.data).toMatchObject({ spec: { template: { $patch: 'replace', spec: { containers: [{ image: 'nginx:2.0' }] } } } });
  });

  it('a rollback reuses the old revision with the next number', async () => {
    const env = await start();
    await env.api.create(R.statefulsets, 'default', sts(1));
    await settle(100);
    const first = (await get(env)).status?.updateRevision;
    for (const image of ['nginx:2.0', 'nginx:1.0']) {
      const cur = await get(env);
      cur.spec.template.spec.containers[0]!.image = image;
      await env.api.update(R.statefulsets, 'default', cur);
      await settle(150);
    }
    const st = (await get(env)).status;
    expect(st?.updateRevision).toBe(first);
    const revs = env.api.all<ControllerRevision>(R.controllerrevisions, 'default');
    expect(revs.find((r) => r.metadata.name === first)?.revision).toBe(3);
  });

  it('OnDelete: the template change reaches a pod only when it is deleted', async () => {
    const env = await start();
    await env.api.create(R.statefulsets, 'default', sts(2, { updateStrategy: { type: 'OnDelete' } }));
    await settle(150);
    const cur = await get(env);
    cur.spec.template.spec.containers[0]!.image = 'nginx:2.0';
    await env.api.update(R.statefulsets, 'default', cur);
    await settle(150);
    expect((await env.api.get<Pod>(R.pods, 'default', 'web-1')).spec.containers[0]?.image).toBe('nginx:1.0');
    await env.api.delete(R.pods, 'default', 'web-1');
    await settle(150);
    expect((await env.api.get<Pod>(R.pods, 'default', 'web-1')).spec.containers[0]?.image).toBe('nginx:2.0');
    expect((await env.api.get<Pod>(R.pods, 'default', 'web-0')).spec.containers[0]?.image).toBe('nginx:1.0');
  });

  it('claims www-web-N are created before their pods; retention policy Delete makes the set their controller and, on scale down, the pod', async () => {
    const env = await start();
    const set = await env.api.create(R.statefulsets, 'default', sts(2, { volumeClaimTemplates: [www], persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }));
    await settle(200);
    const claims = env.api.all(R.persistentvolumeclaims, 'default');
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(['www-web-0', 'www-web-1']);
    expect(claims[0]?.metadata.labels).toEqual({ tier: 'data', app: 'nginx' });
    expect(claims[0]?.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(eventsOf(env, 'SuccessfulCreate')).toContain('create Claim www-web-1 Pod web-1 in StatefulSet web success');
    const web1 = await env.api.get<Pod>(R.pods, 'default', 'web-1');
    expect(web1.spec.volumes).toEqual([{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } }]);
    const cur = await get(env);
    await env.api.update(R.statefulsets, 'default', { ...cur, spec: { ...cur.spec, replicas: 1 } });
    await settle(200);
    const claim1 = await env.api.get(R.persistentvolumeclaims, 'default', 'www-web-1');
    expect(claim1.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: web1.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  });

  it('a policy changed to Retain takes the set off the claims', async () => {
    const env = await start();
    await env.api.create(R.statefulsets, 'default', sts(1, { volumeClaimTemplates: [www], persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' } }));
    await settle(200);
    expect((await env.api.get(R.persistentvolumeclaims, 'default', 'www-web-0')).metadata.ownerReferences?.map((r) => r.kind)).toEqual(['StatefulSet']);
    const cur = await get(env);
    await env.api.update(R.statefulsets, 'default', { ...cur, spec: { ...cur.spec, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' } } });
    await settle(200);
    expect((await env.api.get(R.persistentvolumeclaims, 'default', 'www-web-0')).metadata.ownerReferences ?? []).toEqual([]);
  });

  it('a claim deleted under a pending pod is created again', async () => {
    const env = await start(false);
    await env.api.create(R.statefulsets, 'default', sts(1, { volumeClaimTemplates: [www] }));
    await settle();
    await env.api.delete(R.persistentvolumeclaims, 'default', 'www-web-0');
    await settle();
    expect(env.api.all(R.persistentvolumeclaims, 'default')).toEqual([]);
    // The scheduler's FailedScheduling status update is what the controller sees next.
    const p = await env.api.get<Pod>(R.pods, 'default', 'web-0');
    await env.api.updateStatus(R.pods, 'default', { ...p, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } });
    await settle();
    expect(env.api.all(R.persistentvolumeclaims, 'default').map((c) => c.metadata.name)).toEqual(['www-web-0']);
    expect(eventsOf(env, 'SuccessfulCreate').filter((m) => m.startsWith('create Claim'))).toEqual(['create Claim www-web-0 Pod web-0 in StatefulSet web success', 'create Claim www-web-0 Pod web-0 in StatefulSet web success']);
  });

  it('a claim still owned by an earlier pod of that name holds back the pod (whenScaled: Delete)', async () => {
    const env = await start(false);
    await env.api.create(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'www-web-0', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web-0', uid: 'old-pod', controller: true }] },
      spec: {},
    });
    await env.api.create(R.statefulsets, 'default', sts(1, { volumeClaimTemplates: [www], persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' } }));
    await settle();
    expect(names(env)).toEqual([]);
    await env.api.delete(R.persistentvolumeclaims, 'default', 'www-web-0');
    const cur = await get(env);
    await env.api.update(R.statefulsets, 'default', { ...cur, metadata: { ...cur.metadata, labels: { touched: 'yes' } } });
    await settle();
    expect(names(env)).toEqual(['web-0']);
  });

  for (const [gate, deleted] of [
    ['MaxUnavailableStatefulSet=false', ['web-3']],
    ['MaxUnavailableStatefulSet=true', ['web-3', 'web-2']],
  ] as const) {
    it(`rollingUpdate.maxUnavailable: 2 with ${gate} deletes ${deleted.join(' and ')} first`, async () => {
      const env = await start(false, [`--feature-gates=${gate}`]);
      const rollingUpdate = { partition: 0, maxUnavailable: 2 };
      await env.api.create(R.statefulsets, 'default', sts(4, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate } }));
      await settle();
      for (const n of ['web-0', 'web-1', 'web-2', 'web-3']) await ready(env, n);
      const cur = await get(env);
      cur.spec.template.spec.containers[0]!.image = 'nginx:2.0';
      await env.api.update(R.statefulsets, 'default', cur);
      await settle(200);
      expect(eventsOf(env, 'SuccessfulDelete')).toEqual(deleted.map((n) => `delete Pod ${n} in StatefulSet web successful`));
    });
  }
});

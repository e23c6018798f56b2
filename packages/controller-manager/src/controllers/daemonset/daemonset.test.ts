import { afterEach, describe, expect, it } from 'vitest';
import { R, type ControllerRevision, type DaemonSet, type Node, type Pod } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { fakeKubelet } from '../../testing/kubelet.ts';
import { DaemonSetController } from './index.ts';
import { targetNodeName } from './pods.ts';

function node(name: string, labels: Record<string, string> = {}, taints: NonNullable<Node['spec']>['taints'] = []): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: { taints } };
}

function ds(extra: Partial<DaemonSet['spec']> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'fluentd', namespace: 'kube-system', annotations: { 'deprecated.daemonset.template.generation': '1' } },
    spec: {
      selector: { matchLabels: { name: 'fluentd' } },
      template: { metadata: { labels: { name: 'fluentd' } }, spec: { containers: [{ name: 'fluentd', image: 'fluentd:1' }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      ...extra,
    },
  };
}

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

async function start(nodes: Node[], kubelet = true) {
  const env = fakeContext();
  envs.push(env);
  for (const n of nodes) await env.api.create(R.nodes, undefined, n);
  if (kubelet) fakeKubelet(env.api, env.clock);
  const c = new DaemonSetController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

const pods = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'kube-system').filter((p) => !p.metadata.deletionTimestamp);
const byNode = (env: FakeEnv) => pods(env).map((p) => targetNodeName(p)).sort();
const get = (env: FakeEnv) => env.api.get<DaemonSet>(R.daemonsets, 'kube-system', 'fluentd');

describe('daemonset-controller', () => {
  it('one pod per eligible node, pinned by node affinity, with the daemon tolerations', async () => {
    const env = await start([
      node('a'),
      node('b', {}, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]),
      node('c', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]),
      node('d', { disk: 'hdd' }),
    ]);
    await env.api.create(R.daemonsets, 'kube-system', ds());
    await settle(100);
    expect(byNode(env)).toEqual(['a', 'c', 'd']);
    const p = pods(env).find((x) => targetNodeName(x) === 'a') as Pod;
    expect(p.spec.nodeName).toBeUndefined();
    expect(p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }],
    });
    expect(p.spec.tolerations?.map((t) => `${t.key}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    expect(p.metadata.labels).toMatchObject({ name: 'fluentd', 'pod-template-generation': '1' });
    expect((await get(env)).status).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3, numberAvailable: 3, updatedNumberScheduled: 3, numberMisscheduled: 0, numberUnavailable: 0 });
  });

  it('follows nodeSelector, and new nodes get a pod', async () => {
    const env = await start([node('a', { disk: 'ssd' }), node('b')]);
    await env.api.create(R.daemonsets, 'kube-system', ds({ template: { metadata: { labels: { name: 'fluentd' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'f', image: 'f' }] } } }));
    await settle(100);
    expect(byNode(env)).toEqual(['a']);
    await env.api.create(R.nodes, undefined, node('c', { disk: 'ssd' }));
    await settle(100);
    expect(byNode(env)).toEqual(['a', 'c']);
  });

  it('rolls a new template out node by node and records ControllerRevisions', async () => {
    const env = await start([node('a'), node('b'), node('c')]);
    await env.api.create(R.daemonsets, 'kube-system', ds());
    await settle(100);
    const cur = await get(env);
    cur.spec.template.spec.containers[0]!.image = 'fluentd:2';
    cur.metadata.annotations = { 'deprecated.daemonset.template.generation': '2' };
    await env.api.update(R.daemonsets, 'kube-system', cur);
    await settle(400);
    expect(pods(env).map((p) => p.spec.containers[0]?.image)).toEqual(['fluentd:2', 'fluentd:2', 'fluentd:2']);
    expect(byNode(env)).toEqual(['a', 'b', 'c']);
    expect(env.recorder.events.filter((e) => e.reason === 'SuccessfulDelete')).toHaveLength(3);
    const revs = env.api.all<ControllerRevision>(R.controllerrevisions, 'kube-system').sort((a, b) => a.revision - b.revision);
    expect(revs.map((r) => r.revision)).toEqual([1, 2]);
    expect(revs[1]?.metadata.name).toMatch(/^fluentd-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(revs[1]?.data).toMatchObject({ spec: { template: { $patch: 'replace' } } });
    expect((await get(env)).status).toMatchObject({ updatedNumberScheduled: 3, numberAvailable: 3 });
  });

  it('maxSurge: the new pod starts beside the old one, which goes once the new is available', async () => {
    const env = await start([node('a'), node('b')]);
    await env.api.create(R.daemonsets, 'kube-system', ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }));
    await settle(100);
    const cur = await get(env);
    cur.spec.template.spec.containers[0]!.image = 'fluentd:2';
    // The apiserver's strategy bumps the template generation; the fake API does not.
    cur.metadata.annotations = { 'deprecated.daemonset.template.generation': '2' };
    await env.api.update(R.daemonsets, 'kube-system', cur);
    await settle(400);
    expect(pods(env).map((p) => p.spec.containers[0]?.image)).toEqual(['fluentd:2', 'fluentd:2']);
    expect(byNode(env)).toEqual(['a', 'b']);
  });

  it('OnDelete leaves old pods until they are deleted', async () => {
    const env = await start([node('a')]);
    await env.api.create(R.daemonsets, 'kube-system', ds({ updateStrategy: { type: 'OnDelete' } }));
    await settle(100);
    const cur = await get(env);
    cur.spec.template.spec.containers[0]!.image = 'fluentd:2';
    await env.api.update(R.daemonsets, 'kube-system', cur);
    await settle(100);
    expect(pods(env).map((p) => p.spec.containers[0]?.image)).toEqual(['fluentd:1']);
    await env.api.delete(R.pods, 'kube-system', pods(env)[0]?.metadata.name ?? '');
    await settle(100);
    expect(pods(env).map((p) => p.spec.containers[0]?.image)).toEqual(['fluentd:2']);
  });

  it('replaces a failed pod with a FailedDaemonPod event, backing off (1s, then 2s) when it fails again', async () => {
    const env = await start([node('a')], false);
    await env.api.create(R.daemonsets, 'kube-system', ds());
    await settle(100);
    const fail = async () => {
      const p = pods(env)[0]!;
      await env.api.updateStatus(R.pods, 'kube-system', { ...p, status: { phase: 'Failed' } });
      await settle(100);
      return p.metadata.name;
    };
    const first = await fail();
    expect(pods(env).map((p) => p.metadata.name)).not.toContain(first);
    expect(pods(env)).toHaveLength(1);
    expect(env.recorder.events.filter((e) => e.reason === 'FailedDaemonPod').map((e) => `${e.type} ${e.message}`)).toEqual([`Warning Found failed daemon pod kube-system/${first} on node a, will try to kill it`]);
    const second = await fail();
    expect(pods(env).map((p) => p.metadata.name)).toEqual([second]);
    await env.clock.advance(1000);
    await settle(100);
    expect(pods(env).map((p) => p.metadata.name)).not.toContain(second);
    const third = await fail();
    await env.clock.advance(1000);
    await settle(100);
    expect(pods(env).map((p) => p.metadata.name)).toEqual([third]);
    await env.clock.advance(1000);
    await settle(100);
    expect(pods(env).map((p) => p.metadata.name)).not.toContain(third);
  });

  it('adopts orphaned ControllerRevisions its selector matches and releases owned ones it no longer matches', async () => {
    const env = await start([node('a')]);
    const rev = (name: string, labels: Record<string, string>, ownerReferences?: ControllerRevision['metadata']['ownerReferences']): ControllerRevision => ({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name, namespace: 'kube-system', labels, ownerReferences },
      data: { spec: { template: { metadata: { labels: { name: 'fluentd' } }, spec: { containers: [{ name: 'fluentd', image: 'fluentd:0' }] }, $patch: 'replace' } } },
      revision: 1,
    });
    await env.api.create(R.controllerrevisions, 'kube-system', rev('orphan', { name: 'fluentd' }));
    await env.api.create(R.controllerrevisions, 'kube-system', rev('stranger', { name: 'other' }));
    await env.api.create(R.daemonsets, 'kube-system', ds());
    await settle(100);
    const created = await get(env);
    const ownerOf = async (name: string) => (await env.api.get<ControllerRevision>(R.controllerrevisions, 'kube-system', name)).metadata.ownerReferences ?? [];
    expect(await ownerOf('orphan')).toEqual([{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(await ownerOf('stranger')).toEqual([]);
    // The adopted revision is history: the template's own revision comes after it.
    const revs = env.api.all<ControllerRevision>(R.controllerrevisions, 'kube-system').filter((r) => r.metadata.name !== 'stranger');
    expect(revs.map((r) => [r.metadata.name === 'orphan', r.revision]).sort()).toEqual([[false, 2], [true, 1]]);
    // Relabel the adopted revision out of the selector: the DaemonSet lets it go.
    const adopted = await env.api.get<ControllerRevision>(R.controllerrevisions, 'kube-system', 'orphan');
    await env.api.update(R.controllerrevisions, 'kube-system', { ...adopted, metadata: { ...adopted.metadata, labels: { name: 'gone' } } });
    await settle(100);
    expect(await ownerOf('orphan')).toEqual([]);
  });
});

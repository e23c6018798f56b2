// A real kubelet's Events through a real apiserver: a pod's Pulling/Pulled/Created/Started (and Killing on
// delete) about spec.containers{web}, found the way `kubectl describe pod` finds them (and shown by it), and
// the node's own Starting/NodeHasSufficientMemory/…/NodeReady, and NodeNotSchedulable/NodeSchedulable on
// cordon/uncordon.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CoreEvent, type Node, type Pod } from '@kemu/api';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { startCluster, startKubelet, type TestCluster } from './cluster.ts';

const run = promisify(execFile);
let cluster: TestCluster;
const NODE = 'ev-node';

beforeAll(async () => {
  cluster = await startCluster();
  startKubelet(cluster, [`--hostname-override=${NODE}`, '--node-status-update-frequency=1s', '--image-pull-delay=1200ms']);
});
afterAll(async () => cluster?.close());

async function podEvents(pod: Pod): Promise<CoreEvent[]> {
  const fieldSelector = `involvedObject.name=${pod.metadata.name},involvedObject.namespace=default,involvedObject.uid=${pod.metadata.uid}`;
  return (await cluster.client.list<CoreEvent>(R.events, 'default', { fieldSelector })).items;
}

describe('kubelet events', () => {
  it('records the node events with source kubelet/<node> about the Node (uid = node name)', async () => {
    const want = ['Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady'];
    const evs = await waitFor('node events', async () => {
      const items = (await cluster.client.list<CoreEvent>(R.events, 'default', { fieldSelector: `involvedObject.kind=Node,involvedObject.name=${NODE}` })).items;
      return want.every((r) => items.some((e) => e.reason === r)) ? items : undefined;
    });
    const ready = evs.find((e) => e.reason === 'NodeReady');
    expect(ready).toMatchObject({
      type: 'Normal',
      message: `Node ${NODE} status is now: NodeReady`,
      source: { component: 'kubelet', host: NODE },
      involvedObject: { kind: 'Node', name: NODE, uid: NODE },
    });
    expect(evs.find((e) => e.reason === 'Starting')?.message).toBe('Starting kubelet.');
  });

  it('a pod gets Pulling, Pulled, Created, Started about spec.containers{web}, then Killing on delete', async () => {
    await cluster.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'ev', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'web', image: 'nginx' }] },
    } as Pod);
    const pod = await waitFor('Running', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'ev');
      return p.status?.phase === 'Running' ? p : undefined;
    });
    const evs = await waitFor('pod events', async () => {
      const items = await podEvents(pod);
      return ['Pulling', 'Pulled', 'Created', 'Started'].every((r) => items.some((e) => e.reason === r)) ? items : undefined;
    });
    const by = (r: string) => evs.find((e) => e.reason === r);
    for (const r of ['Pulling', 'Pulled', 'Created', 'Started']) {
      expect(by(r)).toMatchObject({
        type: 'Normal',
        source: { component: 'kubelet', host: NODE },
        involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'ev', namespace: 'default', uid: pod.metadata.uid, fieldPath: 'spec.containers{web}' },
        count: 1,
      });
    }
    expect(by('Pulling')?.message).toBe('Pulling image "nginx"');
    expect(by('Pulled')?.message).toMatch(/^Successfully pulled image "nginx" in 1\.2\d*s \(1\.\d+s including waiting\)\. Image size: \d+ bytes\.$/);
    expect(by('Created')?.message).toBe('Created container web');
    expect(by('Started')?.message).toBe('Started container web');

    // kubectl describe pod shows them (it looks events up by the pod's name, namespace and uid).
    const { stdout } = await run('kubectl', ['--server', cluster.url, 'describe', 'pod', 'ev'], { env: { ...process.env, KUBECONFIG: '/dev/null' } });
    const section = stdout.slice(stdout.indexOf('Events:'));
    expect(section).toMatch(/Normal\s+Pulling\s+\S+\s+kubelet\s+Pulling image "nginx"/);
    expect(section).toMatch(/Normal\s+Started\s+\S+\s+kubelet\s+Started container web/);

    await cluster.client.delete(R.pods, 'default', 'ev');
    const killing = await waitFor('Killing event', async () => (await podEvents(pod)).find((e) => e.reason === 'Killing'));
    expect(killing).toMatchObject({ type: 'Normal', message: 'Stopping container web', involvedObject: { fieldPath: 'spec.containers{web}' } });
  });

  it('cordon records NodeNotSchedulable and uncordon NodeSchedulable, once each, about the Node', async () => {
    const nodeEvents = async (reason: string) =>
      (await cluster.client.list<CoreEvent>(R.events, 'default', { fieldSelector: `involvedObject.kind=Node,involvedObject.name=${NODE},reason=${reason}` })).items;
    // Registered schedulable: nothing was recorded (the kubelet reports only a change).
    await waitFor('node registered', async () => (await cluster.client.get<Node>(R.nodes, undefined, NODE)).metadata.uid);
    expect(await nodeEvents('NodeSchedulable')).toEqual([]);
    expect(await nodeEvents('NodeNotSchedulable')).toEqual([]);

    await cluster.client.patch(R.nodes, undefined, NODE, { spec: { unschedulable: true } }, 'merge');
    const cordoned = await waitFor('NodeNotSchedulable event', async () => (await nodeEvents('NodeNotSchedulable'))[0]);
    expect(cordoned).toMatchObject({
      type: 'Normal',
      message: `Node ${NODE} status is now: NodeNotSchedulable`,
      source: { component: 'kubelet', host: NODE },
      involvedObject: { kind: 'Node', name: NODE, uid: NODE },
      count: 1,
    });
    expect(await nodeEvents('NodeSchedulable')).toEqual([]);

    await cluster.client.patch(R.nodes, undefined, NODE, { spec: { unschedulable: false } }, 'merge');
    const uncordoned = await waitFor('NodeSchedulable event', async () => (await nodeEvents('NodeSchedulable'))[0]);
    expect(uncordoned).toMatchObject({
      type: 'Normal',
      message: `Node ${NODE} status is now: NodeSchedulable`,
      involvedObject: { kind: 'Node', name: NODE, uid: NODE },
      count: 1,
    });
    expect((await nodeEvents('NodeNotSchedulable'))[0]?.count).toBe(1);
  });

  it('pods placed by the scheduler each get one Scheduled, one Pulling and one Pulled Event: none is lost to a name another process took', async () => {
    // The scheduler's Scheduled and the kubelet's Pulling are written about one pod within a millisecond or so
    // of each other; with millisecond-only names they used to collide and one was lost ("already exists").
    const FAST = 'ev-fast';
    const kubelet = startKubelet(cluster, [`--hostname-override=${FAST}`, '--node-status-update-frequency=1s', '--image-pull-delay=20ms']);
    const scheduler = startProcess('kube-scheduler', BIN.scheduler, [`--master=${cluster.url}`, '--leader-elect=false', '--secure-port=0']);
    cluster.procs.push(scheduler);
    await waitFor(`${FAST} Ready`, async () => {
      const n = await cluster.client.get<Node>(R.nodes, undefined, FAST).catch(() => undefined);
      return n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    }, 30_000, 100);
    const N = 30;
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        cluster.client.create(R.pods, 'default', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `placed-${i}`, namespace: 'default', labels: { app: 'placed' } },
          // A distinct image each, so that every pod pulls (an image already on the node gives only Pulled).
          spec: { nodeSelector: { 'kubernetes.io/hostname': FAST }, containers: [{ name: 'web', image: `registry.local/placed-${i}:1` }] },
        } as Pod),
      ),
    );
    const reasons = ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'];
    const all = await waitFor(`${N} pods with all their events`, async () => {
      const items = (await cluster.client.list<CoreEvent>(R.events, 'default')).items.filter((e) => e.involvedObject.name?.startsWith('placed-'));
      const byPod = new Map<string, string[]>();
      for (const e of items) byPod.set(e.involvedObject.name ?? '', [...(byPod.get(e.involvedObject.name ?? '') ?? []), e.reason ?? '']);
      return byPod.size === N && [...byPod.values()].every((rs) => reasons.every((r) => rs.includes(r))) ? byPod : undefined;
    }, 60_000, 250);
    // (A FailedScheduling before the scheduler's cache has the node is fine; it is not counted here.)
    for (const [pod, rs] of all) expect(rs.filter((r) => reasons.includes(r)).sort(), pod).toEqual([...reasons].sort());
    expect(kubelet.output()).not.toContain('could not write event');
    expect(scheduler.output()).not.toContain('could not write event');
  }, 90_000);
});

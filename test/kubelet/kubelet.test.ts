// A real kubelet process against a real apiserver: registration, Ready, Lease renewal, a pod bound by hand
// going ContainerCreating → Running with an IP in the node's pod CIDR, and deletion → Terminating → gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, StatusError, parseTime, type Lease, type Node, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { httpsGet } from '@kemu/client/testing/https-get';
import { startCluster, startKubelet, type TestCluster } from './cluster.ts';

let cluster: TestCluster;
const NODE = 'kl-node';
/** The kubelet API's port (AlwaysAllow, anonymous: the defaults). */
let apiPort: number;

beforeAll(async () => {
  cluster = await startCluster();
  apiPort = await freePort();
  startKubelet(cluster, [
    '--bind-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    '--cert-dir=',
    `--hostname-override=${NODE}`,
    '--node-labels=zone=a,tier=test',
    '--register-with-taints=dedicated=test:PreferNoSchedule',
    '--node-lease-duration-seconds=4',
    '--node-status-update-frequency=1s',
    '--image-pull-delay=1500ms',
    '--pod-cidr=10.99.7.0/24',
    '--capacity-cpu=2',
  ]);
});
afterAll(async () => cluster?.close());

async function getOrUndefined<T extends Pod | Node | Lease>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return undefined;
    throw e;
  }
}

describe('kubelet', () => {
  it('registers its Node with labels, taints, capacity, addresses and Ready=True', async () => {
    const node = await waitFor('node Ready', async () => {
      const n = await getOrUndefined(() => cluster.client.get<Node>(R.nodes, undefined, NODE));
      return n?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? n : undefined;
    });
    expect(node.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux', zone: 'a', tier: 'test' });
    expect(node.spec?.taints).toEqual([{ key: 'dedicated', value: 'test', effect: 'PreferNoSchedule' }]);
    expect(node.status?.capacity).toMatchObject({ cpu: '2', pods: '110' });
    expect(node.status?.allocatable).toMatchObject({ cpu: '2' });
    expect(node.status?.addresses?.map((a) => a.type)).toEqual(['InternalIP', 'Hostname']);
    expect(node.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.31\./);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ reason: 'KubeletReady', message: 'kubelet is posting ready status' });
    expect(node.status?.conditions?.map((c) => c.type)).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
  });

  it('renews its Lease in kube-node-lease, owned by the Node', async () => {
    // The first renewal may race registration; the owner reference is added once the Node exists.
    const first = await waitFor('lease owned by the node', async () => {
      const l = await getOrUndefined(() => cluster.client.get<Lease>(R.leases, 'kube-node-lease', NODE));
      return l?.metadata.ownerReferences?.length ? l : undefined;
    });
    expect(first.spec?.holderIdentity).toBe(NODE);
    expect(first.spec?.leaseDurationSeconds).toBe(4);
    expect(first.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: NODE });
    const t0 = parseTime(first.spec?.renewTime);
    await waitFor('lease renewed', async () => {
      const l = await cluster.client.get<Lease>(R.leases, 'kube-node-lease', NODE);
      return parseTime(l.spec?.renewTime) > t0;
    }, 10_000);
  });

  it('runs a pod bound by hand: ContainerCreating → Running with a pod IP; delete → Terminating → gone', async () => {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', annotations: { 'kemu.dev/termination-seconds': '1' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', readinessProbe: { initialDelaySeconds: 1, httpGet: { port: 80 } } }] },
    };
    await cluster.client.create(R.pods, 'default', pod);
    await cluster.client.createSubresource(R.pods, 'default', 'web', 'binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'web', namespace: 'default' },
      target: { apiVersion: 'v1', kind: 'Node', name: NODE },
    });
    const creating = await waitFor('ContainerCreating', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'web');
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating' ? p : undefined;
    });
    expect(creating.status?.phase).toBe('Pending');
    const running = await waitFor('Running and Ready', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'web');
      return p.status?.phase === 'Running' && p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? p : undefined;
    });
    expect(running.status?.podIP).toMatch(/^10\.99\.7\.\d+$/);
    expect(running.status?.hostIP).toBeTruthy();
    expect(running.status?.startTime).toBeTruthy();
    const cs = running.status?.containerStatuses?.[0];
    expect(cs).toMatchObject({ name: 'nginx', ready: true, started: true, restartCount: 0, image: 'docker.io/library/nginx:1.27' });
    expect(cs?.containerID).toMatch(/^kemu:\/\/[0-9a-f]{64}$/);
    expect(cs?.state?.running?.startedAt).toBeTruthy();

    // The pulled image now shows in node.status.images.
    await waitFor('image on node', async () => {
      const n = await cluster.client.get<Node>(R.nodes, undefined, NODE);
      return n.status?.images?.some((i) => i.names?.includes('docker.io/library/nginx:1.27'));
    });

    await cluster.client.delete(R.pods, 'default', 'web');
    const terminating = await cluster.client.get<Pod>(R.pods, 'default', 'web');
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30);
    await waitFor('pod gone', async () => (await getOrUndefined(() => cluster.client.get<Pod>(R.pods, 'default', 'web'))) === undefined);
  });

  it('plays a container that exits: restartPolicy Never + sh -c "…; sleep 1; exit 3" → Failed, its output on /containerLogs', async () => {
    await cluster.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'job', namespace: 'default' },
      spec: { nodeName: NODE, restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo starting on $(hostname); sleep 1; echo failing >&2; exit 3'] }] },
    } as Pod);
    const p = await waitFor('Failed', async () => {
      const x = await cluster.client.get<Pod>(R.pods, 'default', 'job');
      return x.status?.phase === 'Failed' ? x : undefined;
    });
    expect(p.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    const logs = await httpsGet(`https://127.0.0.1:${apiPort}/containerLogs/default/job/c`);
    expect([logs.status, logs.type, logs.body]).toEqual([200, 'text/plain; charset=utf-8', 'starting on job\nfailing\n']);
    const missing = await httpsGet(`https://127.0.0.1:${apiPort}/containerLogs/default/nope/c`);
    expect([missing.status, missing.body]).toEqual([404, 'pod "nope" does not exist']);
  });

  it('rejects a pod that does not fit with OutOfcpu', async () => {
    await cluster.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'big', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '3' } } }] },
    } as Pod);
    const p = await waitFor('rejected', async () => {
      const x = await cluster.client.get<Pod>(R.pods, 'default', 'big');
      return x.status?.phase === 'Failed' ? x : undefined;
    });
    expect(p.status?.reason).toBe('OutOfcpu');
    expect(p.status?.message).toBe("Node didn't have enough resource: cpu, requested: 3000, used: 0, capacity: 2000");
  });

  it('registers the Node again when it is deleted', async () => {
    const before = await cluster.client.get<Node>(R.nodes, undefined, NODE);
    await cluster.client.delete(R.nodes, undefined, NODE);
    const after = await waitFor('re-registered', async () => {
      const n = await getOrUndefined(() => cluster.client.get<Node>(R.nodes, undefined, NODE));
      return n && n.metadata.uid !== before.metadata.uid ? n : undefined;
    });
    expect(after.metadata.labels?.['kubernetes.io/hostname']).toBe(NODE);
  });
});

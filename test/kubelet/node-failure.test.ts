// Killing a kubelet is a node failure: with the node-lifecycle controller the Node goes Ready=Unknown and is
// tainted unreachable; a restarted kubelet brings it back and adopts its pod (same IP, no restart).
// Also: node-ipam gives the Node its podCIDR and the pod's IP comes from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Node, type Pod } from '@kemu/api';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { startCluster, startKubelet, type TestCluster } from './cluster.ts';

let cluster: TestCluster;
const NODE = 'nf-node';
const KUBELET_ARGS = [`--hostname-override=${NODE}`, '--node-lease-duration-seconds=2', '--node-status-update-frequency=1s'];
let kubelet: Proc;

beforeAll(async () => {
  cluster = await startCluster();
  const cm = startProcess('kube-controller-manager', BIN.controllerManager, [
    `--master=${cluster.url}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--controllers=node-lifecycle-controller,node-ipam-controller',
    '--allocate-node-cidrs',
    '--cluster-cidr=10.77.0.0/16',
    '--node-monitor-period=500ms',
    '--node-monitor-grace-period=4s',
    '--node-eviction-rate=10',
  ]);
  cluster.procs.push(cm);
  kubelet = startKubelet(cluster, KUBELET_ARGS);
});
afterAll(async () => cluster?.close());

const ready = (n: Node | undefined) => n?.status?.conditions?.find((c) => c.type === 'Ready');

describe('node failure and recovery', () => {
  it('gets a podCIDR, runs a pod from it, goes Unknown when killed and comes back when restarted', async () => {
    const node = await waitFor('podCIDR and Ready', async () => {
      const n = await cluster.client.get<Node>(R.nodes, undefined, NODE);
      return n.spec?.podCIDR && ready(n)?.status === 'True' ? n : undefined;
    });
    expect(node.spec?.podCIDR).toMatch(/^10\.77\.\d+\.0\/24$/);
    const prefix = (node.spec?.podCIDR ?? '').split('.').slice(0, 3).join('.');
    await cluster.client.create(R.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'survivor', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'c', image: 'nginx' }], tolerations: [{ operator: 'Exists' }] },
    } as Pod);
    const running = await waitFor('pod Running', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'survivor');
      return p.status?.phase === 'Running' ? p : undefined;
    });
    expect(running.status?.podIP?.startsWith(`${prefix}.`)).toBe(true);

    await kubelet.kill('SIGKILL');
    const lost = await waitFor('Ready=Unknown and unreachable taint', async () => {
      const n = await cluster.client.get<Node>(R.nodes, undefined, NODE);
      return ready(n)?.status === 'Unknown' && n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? n : undefined;
    }, 30_000);
    expect(ready(lost)).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    await waitFor('pod not Ready', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'survivor');
      return p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False';
    });

    kubelet = startKubelet(cluster, KUBELET_ARGS);
    await waitFor('Ready again, untainted', async () => {
      const n = await cluster.client.get<Node>(R.nodes, undefined, NODE);
      return ready(n)?.status === 'True' && !(n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/unreachable');
    }, 30_000);
    const back = await waitFor('pod Ready again', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'survivor');
      return p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? p : undefined;
    });
    expect(back.status?.podIP).toBe(running.status?.podIP);
    expect(back.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(back.status?.startTime).toBe(running.status?.startTime);
  });
});

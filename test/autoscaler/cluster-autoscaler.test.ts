// The cluster-autoscaler in a real lab: `kemu up --node-group name=pool,min=1,max=2,...` starts pool-0 and one
// cluster-autoscaler; a pod that does not fit triggers a scale-up to pool-1, lands there, a pod beyond the max
// stays Pending with NotTriggerScaleUp, and once the pods go the extra node is drained away and deleted.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker', 'cluster-autoscaler') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/autoscaler/cluster-autoscaler.test.ts: ${skip}`);

interface Item {
  metadata: { name: string };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}
interface EventItem {
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
  source?: { component?: string };
}

const pod = (name: string, cpu: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu } } }], terminationGracePeriodSeconds: 0 },
});

describe.skipIf(skip)('cluster-autoscaler (kemu node groups)', () => {
  let lab: Lab;
  const nodes = async () => (await lab.kubectlJson<{ items: Item[] }>('get', 'nodes')).items;
  const ready = (n: Item) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const events = async (name: string) =>
    (await lab.kubectlJson<{ items: EventItem[] }>('get', 'events', '-n', 'default', `--field-selector=involvedObject.name=${name}`)).items;
  const apply = (obj: unknown) =>
    new Promise<void>((resolve, reject) => {
      const p = execFile('kubectl', [`--kubeconfig=${lab.kubeconfig}`, 'create', '-f', '-'], { env: { ...process.env, HOME: lab.dir } }, (e, _out, err) =>
        e ? reject(new Error(`kubectl create: ${String(err)}`)) : resolve(),
      );
      p.stdin?.end(JSON.stringify(obj));
    });

  beforeAll(async () => {
    lab = await startLab({
      apiservers: 1,
      controllerManagers: 1,
      schedulers: 1,
      workers: 0,
      imagePullDelay: '0s',
      nodeStatusUpdateFrequency: '2s',
      extra: [
        '--node-group=name=pool,min=1,max=2,cpu=2,memory=4Gi',
        '--autoscaler-arg=--scan-interval=1s',
        '--autoscaler-arg=--scale-down-unneeded-time=3s',
        '--autoscaler-arg=--scale-down-delay-after-add=3s',
      ],
    });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('pool-0 Ready', async () => (await nodes()).some((n) => n.metadata.name === 'pool-0' && ready(n)) || undefined, 60_000, 250);
  }, 180_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('scales up for a pod that does not fit, respects the max, and removes the idle node', async () => {
    await apply(pod('a', '1500m'));
    await waitFor('a Running on pool-0', async () => {
      const p = await lab.kubectlJson<Item>('get', 'pod', 'a');
      return p.status?.phase === 'Running' ? p : undefined;
    }, 30_000, 250);

    // b does not fit pool-0 (2 cpu): the autoscaler asks the cloud for pool-1.
    await apply(pod('b', '1500m'));
    const triggered = await waitFor('TriggeredScaleUp on b', async () => (await events('b')).find((e) => e.reason === 'TriggeredScaleUp'), 30_000, 250);
    expect(triggered.message).toBe('pod triggered scale-up: [{pool 1->2 (max: 2)}]');
    expect(triggered.source?.component).toBe('cluster-autoscaler');
    const b = await waitFor('b Running on pool-1', async () => {
      const p = await lab.kubectlJson<Item>('get', 'pod', 'b');
      return p.status?.phase === 'Running' ? p : undefined;
    }, 60_000, 250);
    expect(b.spec?.nodeName).toBe('pool-1');
    expect((await nodes()).find((n) => n.metadata.name === 'pool-1')?.metadata).toBeDefined();

    // c fits neither node and the group is at its max: it stays Pending, with the autoscaler's reason.
    await apply(pod('c', '1500m'));
    const not = await waitFor('NotTriggerScaleUp on c', async () => (await events('c')).find((e) => e.reason === 'NotTriggerScaleUp'), 30_000, 250);
    expect(not.message).toBe("pod didn't trigger scale-up: 1 max node group size reached");
    expect((await lab.kubectlJson<Item>('get', 'pod', 'c')).status?.phase).toBe('Pending');
    expect(lab.state().components.filter((c) => c.name.startsWith('pool-')).map((c) => c.name).sort()).toEqual(['pool-0', 'pool-1']);

    const status = await lab.kubectlJson<{ data: { status: string } }>('get', 'configmap', '-n', 'kube-system', 'cluster-autoscaler-status');
    expect(status.data.status).toContain('name: pool');
    expect(status.data.status).toContain('cloudProviderTarget: 2');

    // The pods go: pool-1 is empty, unneeded for 3 s, drained and deleted; pool-0 (the min) stays.
    const del = await lab.kubectl('delete', 'pod', 'b', 'c', '--wait=false');
    expect(del.code).toBe(0);
    await waitFor('pool-1 removed', async () => ((await nodes()).some((n) => n.metadata.name === 'pool-1') ? undefined : true), 60_000, 500);
    expect((await nodes()).map((n) => n.metadata.name)).toEqual(['pool-0']);
    expect(lab.state().components.some((c) => c.name === 'pool-1')).toBe(false);
    const down = await waitFor('ScaleDown on pool-1', async () => (await lab.kubectlJson<{ items: EventItem[] }>('get', 'events', '-A', '--field-selector=reason=ScaleDown')).items.find((e) => e.involvedObject.name === 'pool-1'), 15_000, 250);
    expect(down.message).toBe('marked the node as toBeDeleted/unschedulable');
  }, 180_000);
});

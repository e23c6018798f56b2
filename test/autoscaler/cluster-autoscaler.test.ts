// The cluster-autoscaler in a real lab: `kemu up --node-group name=pool,min=1,max=2,...` starts pool-0 and two
// cluster-autoscaler replicas, running as the chart's ServiceAccount kube-system/cluster-autoscaler; a pod that does
// not fit triggers a scale-up to pool-1, lands there, a pod beyond the max stays Pending with NotTriggerScaleUp; a pod
// a PodDisruptionBudget protects keeps pool-1 (the drain is refused and aborted); once the pods go the extra node is
// drained away and deleted. Last, the leader is killed right after it asked the cloud for two `burst` machines: the
// other replica takes the Lease and provisions nothing more.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, run, type Lab } from '../lab/lab.ts';

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
      // Several objects: one JSON stream (one kubectl call, so the scheduler sees them together).
      p.stdin?.end(Array.isArray(obj) ? obj.map((o) => JSON.stringify(o)).join('\n') : JSON.stringify(obj));
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
        // Only for pods that tolerate it (the last case): min 0, and room past what they need, so a second
        // provisioning for the same pods would show as burst-2.
        '--node-group=name=burst,min=0,max=3,cpu=2,memory=4Gi,taints=dedicated=burst:NoSchedule',
        '--cluster-autoscalers=2',
        '--autoscaler-arg=--scan-interval=1s',
        '--autoscaler-arg=--scale-down-unneeded-time=3s',
        '--autoscaler-arg=--scale-down-delay-after-add=3s',
        // For the PDB case: a refused eviction gives up after 2 s, scale-down resumes 1 s after that failure,
        // and a node with one 1500m pod (75% of 2 cpu) counts as unneeded.
        '--autoscaler-arg=--max-pod-eviction-time=2s',
        '--autoscaler-arg=--scale-down-delay-after-failure=1s',
        '--autoscaler-arg=--scale-down-utilization-threshold=0.8',
      ],
    });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('pool-0 Ready', async () => (await nodes()).some((n) => n.metadata.name === 'pool-0' && ready(n)) || undefined, 60_000, 250);
  }, 180_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('scales up for a pod that does not fit and respects the max', async () => {
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
    expect(not.message).toBe("pod didn't trigger scale-up: 1 max node group size reached, 1 node(s) had untolerated taint {dedicated: burst}");
    expect((await lab.kubectlJson<Item>('get', 'pod', 'c')).status?.phase).toBe('Pending');
    expect(lab.state().components.filter((c) => c.name.startsWith('pool-')).map((c) => c.name).sort()).toEqual(['pool-0', 'pool-1']);
    // Everything above was done as the chart's ServiceAccount, with the token kemu up asked for, not as an admin.
    const asAutoscaler = (...a: string[]) => run('kubectl', [`--kubeconfig=${path.join(lab.dir, 'cluster-autoscaler.kubeconfig')}`, ...a], { HOME: lab.dir });
    expect((await asAutoscaler('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}')).stdout).toBe('system:serviceaccount:kube-system:cluster-autoscaler');
    expect((await asAutoscaler('auth', 'can-i', 'create', 'pods', '--subresource=eviction')).stdout.trim()).toBe('yes');
    expect((await asAutoscaler('auth', 'can-i', 'update', 'configmaps/cluster-autoscaler-status', '-n', 'kube-system')).stdout.trim()).toBe('yes');
    expect((await asAutoscaler('auth', 'can-i', 'delete', 'nodes')).stdout.trim()).toBe('no');
    expect((await asAutoscaler('auth', 'can-i', 'create', 'deployments')).stdout.trim()).toBe('no');

    const status = await lab.kubectlJson<{ data: { status: string } }>('get', 'configmap', '-n', 'kube-system', 'cluster-autoscaler-status');
    expect(status.data.status).toContain('name: pool');
    expect(status.data.status).toContain('cloudProviderTarget: 2');

  }, 180_000);

  it('keeps a node whose pod a PodDisruptionBudget protects: the drain is aborted with ScaleDownFailed', async () => {
    // pool-0 must not be the node removed once it is empty.
    expect((await lab.kubectl('annotate', 'node', 'pool-0', 'cluster-autoscaler.kubernetes.io/scale-down-disabled=true')).code).toBe(0);
    const labels = { app: 'guarded' };
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guarded', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } });
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'guarded', namespace: 'default' },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod('x', '1500m').spec } },
    });
    // b and c go: the guarded pod takes pool-1 (no new node needed).
    expect((await lab.kubectl('delete', 'pod', 'b', 'c', '--wait=false')).code).toBe(0);
    const guarded = await waitFor('the guarded pod Running', async () => {
      const ps = (await lab.kubectlJson<{ items: Item[] }>('get', 'pods', '-l', 'app=guarded')).items;
      return ps.find((p) => p.status?.phase === 'Running');
    }, 60_000, 250);
    expect(guarded.spec?.nodeName).toBe('pool-1');

    // a goes: the guarded pod would fit pool-0, so pool-1 is unneeded; its eviction is refused (429) until the deadline.
    expect((await lab.kubectl('delete', 'pod', 'a', '--wait=false')).code).toBe(0);
    const failed = await waitFor('ScaleDownFailed on pool-1', async () =>
      (await lab.kubectlJson<{ items: EventItem[] }>('get', 'events', '-A', '--field-selector=reason=ScaleDownFailed')).items.find((e) => e.involvedObject.name === 'pool-1'), 60_000, 250);
    expect(failed.message).toBe('failed to drain the node, aborting ScaleDown');
    const marked = (await lab.kubectlJson<{ items: EventItem[] }>('get', 'events', '-A', '--field-selector=reason=ScaleDown')).items.find((e) => e.involvedObject.name === 'pool-1');
    expect(marked?.message).toBe('marked the node as toBeDeleted/unschedulable');
    await waitFor('pool-1 untainted', async () => {
      const n = await lab.kubectlJson<{ spec?: { taints?: { key: string }[] } }>('get', 'node', 'pool-1');
      return !n.spec?.taints?.some((t) => t.key === 'ToBeDeletedByClusterAutoscaler') || undefined;
    }, 15_000, 250);
    expect(lab.state().components.some((c) => c.name === 'pool-1')).toBe(true);
    const still = (await lab.kubectlJson<{ items: Item[] }>('get', 'pods', '-l', 'app=guarded')).items;
    expect(still.map((p) => [p.metadata.name, p.spec?.nodeName, p.status?.phase])).toEqual([[guarded.metadata.name, 'pool-1', 'Running']]);
  }, 120_000);

  it('removes the idle node once its pods go', async () => {
    // pool-1 is empty, unneeded for 3 s, and deleted; pool-0 (the min) stays.
    expect((await lab.kubectl('delete', 'deployment', 'guarded')).code).toBe(0);
    await waitFor('pool-1 removed', async () => ((await nodes()).some((n) => n.metadata.name === 'pool-1') ? undefined : true), 60_000, 500);
    expect((await nodes()).map((n) => n.metadata.name)).toEqual(['pool-0']);
    expect(lab.state().components.some((c) => c.name === 'pool-1')).toBe(false);
  }, 180_000);

  it('the leader killed mid scale-up: the other replica takes the Lease and provisions nothing twice', async () => {
    // Which replica leads: its leader_election_master_status gauge (both run on the same host name).
    const leading = async (name: string) => {
      const c = lab.state().components.find((x) => x.name === name);
      if (!c?.healthUrl || c.state !== 'running') return false;
      const r = await fetch(c.healthUrl.replace(/\/health-check$/, '/metrics')).then((x) => x.text()).catch(() => '');
      return /^leader_election_master_status\{name="cluster-autoscaler"\} 1$/m.test(r);
    };
    const replicas = ['cluster-autoscaler-0', 'cluster-autoscaler-1'];
    const leader = await waitFor('an autoscaler leader', async () => {
      for (const r of replicas) if (await leading(r)) return r;
      return undefined;
    }, 30_000, 250);
    const other = replicas.find((r) => r !== leader) ?? '';
    const burstPod = (name: string) => {
      const p = pod(name, '1500m');
      return { ...p, spec: { ...p.spec, nodeSelector: { 'kemu.dev/node-group': 'burst' }, tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'burst', effect: 'NoSchedule' }] } };
    };
    // Each needs a node of its own (in one scan, the leader asks for burst 0->2); the leader dies as soon as the
    // cloud starts a machine, the other replica finds the rest of the scale-up on its way.
    await apply([burstPod('d1'), burstPod('d2')]);
    await waitFor('the cloud starting burst-0', () => lab.state().components.some((c) => c.name === 'burst-0') || undefined, 30_000, 50);
    expect((await lab.kemu('kill', leader)).code).toBe(0);
    await waitFor(`${other} leading`, () => leading(other).then((x) => x || undefined), 30_000, 250);

    for (const name of ['d1', 'd2'])
      await waitFor(`${name} Running`, async () => ((await lab.kubectlJson<Item>('get', 'pod', name)).status?.phase === 'Running' ? true : undefined), 60_000, 250);
    // One more scan of the new leader with both pods placed: still the two machines, whoever asked for them.
    const updated = async () => (await lab.kubectlJson<{ metadata: { annotations?: Record<string, string> } }>('get', 'configmap', '-n', 'kube-system', 'cluster-autoscaler-status')).metadata.annotations?.['cluster-autoscaler.kubernetes.io/last-updated'];
    const before = await updated();
    await waitFor('a status update', async () => ((await updated()) !== before || undefined), 30_000, 250);
    expect(lab.state().components.filter((c) => c.name.startsWith('burst-')).map((c) => c.name).sort()).toEqual(['burst-0', 'burst-1']);
    const placed = await Promise.all(['d1', 'd2'].map(async (n) => (await lab.kubectlJson<Item>('get', 'pod', n)).spec?.nodeName));
    expect(placed.sort()).toEqual(['burst-0', 'burst-1']);
    const triggered = (await lab.kubectlJson<{ items: EventItem[] }>('get', 'events', '-n', 'default', '--field-selector=reason=TriggeredScaleUp')).items.filter((e) => e.involvedObject.name.startsWith('d'));
    // None when the leader died before recording them; 0->1 then 1->2 when the pods came in two scans; never a third machine.
    for (const e of triggered) expect(e.message).toMatch(/^pod triggered scale-up: \[\{burst (0->2|0->1|1->2) \(max: 3\)\}\]$/);
    const status = (await lab.kubectlJson<{ data: { status: string } }>('get', 'configmap', '-n', 'kube-system', 'cluster-autoscaler-status')).data.status;
    expect(status).toMatch(/name: burst\n(.*\n)*?\s+cloudProviderTarget: 2\n/);
  }, 120_000);
});

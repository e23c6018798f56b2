// Disruption budgets, quotas and limits on one small lab, as a kubectl 1.32 user meets them: `kubectl drain`
// blocked by a PodDisruptionBudget until a replacement pod is Ready on the other node, a ResourceQuota
// refusing the pod past it, LimitRange defaults in `kubectl get pod -o yaml`, and the kinds' Tables; and
// `kubectl top` reading the kubelets' emulated usage through metrics.k8s.io.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab, type RunResult } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/workloads/disruption.test.ts: ${skip}`);

function ok(r: RunResult): string {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

interface PodLite {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: { type: string; status: string }[] };
}
const ready = (p: PodLite) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe.skipIf(skip)('disruption budgets, quotas and limits', () => {
  let lab: Lab;
  const k = (...a: string[]) => lab.kubectl(...a);
  const webPods = async () => (await lab.kubectlJson<{ items: PodLite[] }>('get', 'pods', '-l', 'app=web')).items;

  beforeAll(async () => {
    lab = await startLab({ apiservers: 1, controllerManagers: 1, schedulers: 1, workers: 2, metricsServers: 1 });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('2 Ready nodes', async () => (await k('get', 'nodes', '--no-headers')).stdout.split('\n').filter((l) => /^worker-[01]\s+Ready\s/.test(l)).length === 2, 60_000, 300);
  }, 180_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('kubectl drain waits on the budget until a replacement pod is Ready elsewhere, then drains', async () => {
    ok(await k('create', 'deployment', 'web', '--image=nginx', '--replicas=1'));
    ok(await k('rollout', 'status', 'deployment/web', '--timeout=60s'));
    expect(ok(await k('create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1'))).toContain('poddisruptionbudget.policy/web created');
    await waitFor('the budget observed with no disruption allowed', async () => {
      const out = (await k('get', 'pdb', 'web', '--no-headers')).stdout;
      return /^web\s+1\s+N\/A\s+0\s/.test(out) && (await lab.kubectlJson<{ status: { currentHealthy?: number } }>('get', 'pdb', 'web')).status.currentHealthy === 1;
    }, 30_000, 200);
    const [first] = await webPods();
    const node = first!.spec.nodeName!;
    const drain = k('drain', node, '--ignore-daemonsets', '--timeout=60s');
    await waitFor(`${node} cordoned`, async () => (await k('get', 'node', node, '--no-headers')).stdout.includes('SchedulingDisabled'), 30_000, 200);
    // Blocked: the pod stays while the budget allows nothing.
    expect((await webPods()).map((p) => p.metadata.name)).toContain(first!.metadata.name);
    ok(await k('scale', 'deployment/web', '--replicas=2'));
    await waitFor('a Ready replacement on the other node', async () => (await webPods()).some((p) => ready(p) && p.spec.nodeName !== node), 60_000, 300);
    const r = await drain;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`error when evicting pods/"${first!.metadata.name}" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`);
    expect(r.stdout).toContain(`node/${node} drained`);
    ok(await k('uncordon', node));
  }, 120_000);

  it('a quota refuses the pod that exceeds it, with Kubernetes message', async () => {
    ok(await k('create', 'namespace', 'quota'));
    expect(ok(await k('create', 'quota', 'q', '--hard=pods=1', '-n', 'quota'))).toContain('resourcequota/q created');
    await waitFor('the quota counted', async () => (await k('get', 'quota', 'q', '-n', 'quota', '-o', 'jsonpath={.status.used.pods}')).stdout === '0', 30_000, 200);
    ok(await k('run', 'a', '--image=nginx', '-n', 'quota'));
    const r = await k('run', 'b', '--image=nginx', '-n', 'quota');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (Forbidden): pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
    const d = ok(await k('describe', 'quota', 'q', '-n', 'quota'));
    expect(d).toMatch(/Resource\s+Used\s+Hard/);
    expect(d).toMatch(/pods\s+1\s+1/);
  }, 60_000);

  it('LimitRange defaults show in kubectl get pod -o yaml', async () => {
    ok(await k('create', 'namespace', 'limits'));
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'cpu-defaults', namespace: 'limits' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '250m' } }] },
    });
    const file = path.join(lab.dir, 'limitrange.json');
    writeFileSync(file, manifest);
    expect(ok(await k('apply', '-f', file))).toContain('limitrange/cpu-defaults created');
    ok(await k('run', 'p', '--image=nginx', '-n', 'limits'));
    const yaml = ok(await k('get', 'pod', 'p', '-n', 'limits', '-o', 'yaml'));
    expect(yaml).toContain('kubernetes.io/limit-ranger: ');
    expect(yaml).toMatch(/limits:\n\s+cpu: 500m\n\s+requests:\n\s+cpu: 250m/);
    expect(yaml).toContain('qosClass: Burstable');
    const note = ok(await k('get', 'pod', 'p', '-n', 'limits', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}'));
    expect(note).toBe('LimitRanger plugin set: cpu request for container p; cpu limit for container p');
    const tables = ok(await k('get', 'pdb,quota,limits,rc,ing,netpol', '-A'));
    expect(tables).toMatch(/NAMESPACE\s+NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE/);
    expect(tables).toMatch(/NAMESPACE\s+NAME\s+AGE\s+REQUEST\s+LIMIT/);
    expect(tables).toMatch(/limits\s+limitrange\/cpu-defaults\s/);
  }, 60_000);

  it('kubectl top pods and nodes show the kubelets\' emulated usage, a kemu.dev/cpu-usage annotation included', async () => {
    ok(await k('run', 'busy', '--image=nginx', '--annotations=kemu.dev/cpu-usage=250m', '--annotations=kemu.dev/memory-usage=100Mi'));
    // metrics-server (3 s resolution here) needs two scrapes of a container: the pod shows up a few seconds after it runs.
    let top = '';
    await waitFor('busy in kubectl top pods', async () => {
      top = (await k('top', 'pods')).stdout;
      return /\nbusy\s+250m\s+100Mi\s*\n/.test(top);
    }, 60_000, 1000);
    expect(top).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n/);
    const nodes = ok(await k('top', 'nodes'));
    expect(nodes).toMatch(/^NAME\s+CPU\(cores\)\s+CPU%\s+MEMORY\(bytes\)\s+MEMORY%\s*\n/);
    expect(nodes).toMatch(/\nworker-[01]\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*\n/);
  }, 90_000);

  it('metrics.k8s.io is metrics-server behind an aggregated APIService, as in a real cluster', async () => {
    const services = ok(await k('get', 'apiservices'));
    expect(services).toMatch(/\nv1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+True\s+/);
    expect(services).toMatch(/\nv1\.apps\s+Local\s+True\s+/);
    // Answers come from metrics-server through the aggregator: its NotFound words, not the apiserver's.
    const missing = await k('get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes/no-such-node');
    expect(missing.stderr).toMatch(/node "no-such-node" not found/);
    const pods = JSON.parse(ok(await k('get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=metadata.name%3Dbusy'))) as { kind: string; items: { metadata: { name: string }; window: string }[] };
    expect(pods.kind).toBe('PodMetricsList');
    expect(pods.items.map((p) => p.metadata.name)).toEqual(['busy']);
    // The window is the time between metrics-server's two last scrapes (--metric-resolution=3s).
    expect(pods.items[0]?.window).toMatch(/^[2-9](\.\d+)?s$/);
    // A ServiceAccount with no RBAC for metrics is refused.
    ok(await k('create', 'serviceaccount', 'nosy'));
    const denied = await k('top', 'pods', '--as=system:serviceaccount:default:nosy');
    expect(denied.stderr).toMatch(/pods\.metrics\.k8s\.io is forbidden: User "system:serviceaccount:default:nosy" cannot list resource "pods" in API group "metrics\.k8s\.io" in the namespace "default"/);
  }, 60_000);
});

// A Deployment through the real binaries and kubectl: apply → one ReplicaSet and 3 owned pods; scale to 10 and
// back to 2; a new image rolls out within maxSurge/maxUnavailable at every moment seen by a watch; rollout
// undo; deleting the Deployment removes its ReplicaSets and pods (garbage collector). There are no kubelets
// here, so the test marks each pod Ready itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { R, type Deployment, type HorizontalPodAutoscaler, type ReplicaSet } from '@kemu/api';
import { PodTracker, SHORT_LEASE, startEnv, waitFor, type Env } from './cluster.ts';

let env: Env;
let pods: PodTracker;

function manifest(image: string, replicas: number): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: web}',
    'spec:',
    `  replicas: ${replicas}`,
    '  selector: {matchLabels: {app: web}}',
    '  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 2, maxUnavailable: 1}}',
    '  template:',
    '    metadata: {labels: {app: web}}',
    `    spec: {containers: [{name: web, image: "${image}"}]}`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  env = await startEnv();
  // A short autoscaler period for the HorizontalPodAutoscaler case (Kubernetes' flag; default 15s).
  await env.startManager('kcm-0', [...SHORT_LEASE, '--horizontal-pod-autoscaler-sync-period=1s']);
  pods = new PodTracker(env.client, 'default', true);
}, 60_000);
afterAll(async () => {
  pods?.stop();
  await env?.stop();
});

const deployment = () => env.client.get<Deployment>(R.deployments, 'default', 'web');
const replicaSets = async () => (await env.client.list<ReplicaSet>(R.replicasets, 'default')).items;

async function rolledOut(): Promise<Deployment> {
  return waitFor(
    'the rollout to finish',
    async () => {
      const d = await deployment();
      const s = d.status ?? {};
      const want = d.spec.replicas ?? 1;
      const done = (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && s.updatedReplicas === want && (s.replicas ?? 0) === want && s.availableReplicas === want;
      return done && pods.active('web-').length === want ? d : undefined;
    },
    60_000,
    100,
  );
}

describe('Deployment with kube-controller-manager', () => {
  it('kubectl apply: one ReplicaSet and 3 pods owned by it', async () => {
    const file = path.join(env.dir, 'web.yaml');
    writeFileSync(file, manifest('nginx:1.27', 3));
    expect(await env.kubectl('apply', '-f', file)).toContain('deployment.apps/web created');
    const d = await rolledOut();
    const rss = await replicaSets();
    expect(rss).toHaveLength(1);
    const rs = rss[0] as ReplicaSet;
    const hash = rs.metadata.labels?.['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true });
    const live = pods.active('web-');
    expect(live).toHaveLength(3);
    for (const p of live) {
      expect(p.metadata.ownerReferences).toEqual([
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    expect(await env.kubectl('rollout', 'status', 'deployment/web', '--timeout=30s')).toContain('successfully rolled out');
  }, 90_000);

  it('kubectl scale to 10 and back to 2', async () => {
    await env.kubectl('scale', 'deployment/web', '--replicas=10');
    await rolledOut();
    expect(pods.active('web-')).toHaveLength(10);
    await env.kubectl('scale', 'deployment/web', '--replicas=2');
    await rolledOut();
    expect(pods.active('web-')).toHaveLength(2);
  }, 90_000);

  it('a new image rolls out within maxSurge and maxUnavailable at every moment', async () => {
    await env.kubectl('scale', 'deployment/web', '--replicas=6');
    await rolledOut();
    let maxActive = 0;
    let minReady = Infinity;
    pods.onChange((t) => {
      const active = t.active('web-');
      maxActive = Math.max(maxActive, active.length);
      minReady = Math.min(minReady, active.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length);
    });
    await env.kubectl('set', 'image', 'deployment/web', 'web=nginx:1.28');
    await rolledOut();
    expect(await env.kubectl('rollout', 'status', 'deployment/web', '--timeout=30s')).toContain('successfully rolled out');
    console.log(`rolling update of 6: at most ${maxActive} pods, at least ${minReady} ready`);
    expect(maxActive).toBeLessThanOrEqual(6 + 2);
    expect(minReady).toBeGreaterThanOrEqual(6 - 1);
    expect(pods.active('web-').every((p) => p.spec.containers[0]?.image === 'nginx:1.28')).toBe(true);
    expect((await deployment()).metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
  }, 90_000);

  it('kubectl rollout undo brings the old ReplicaSet back as revision 3', async () => {
    const before = await replicaSets();
    await env.kubectl('rollout', 'undo', 'deployment/web');
    await waitFor('the old template', async () => (await deployment()).spec.template.spec.containers[0]?.image === 'nginx:1.27');
    await rolledOut();
    const after = await replicaSets();
    expect(after.map((r) => r.metadata.uid).sort()).toEqual(before.map((r) => r.metadata.uid).sort());
    const active = after.find((r) => (r.spec.replicas ?? 0) > 0);
    expect(active?.spec.template?.spec.containers[0]?.image).toBe('nginx:1.27');
    expect(active?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(pods.active('web-').every((p) => p.spec.containers[0]?.image === 'nginx:1.27')).toBe(true);
  }, 90_000);

  it('kubectl rollout pause holds a template change back; resume and restart roll out', async () => {
    await env.kubectl('rollout', 'pause', 'deployment/web');
    await env.kubectl('set', 'image', 'deployment/web', 'web=nginx:1.29');
    await waitFor('the pause to be observed', async () => {
      const d = await deployment();
      return (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && d.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'DeploymentPaused');
    }, 30_000, 100);
    expect((await replicaSets()).some((r) => r.spec.template?.spec.containers[0]?.image === 'nginx:1.29')).toBe(false);
    await env.kubectl('rollout', 'resume', 'deployment/web');
    await rolledOut();
    expect(pods.active('web-').every((p) => p.spec.containers[0]?.image === 'nginx:1.29')).toBe(true);
    const before = new Set(pods.active('web-').map((p) => p.metadata.uid));
    await env.kubectl('rollout', 'restart', 'deployment/web');
    await waitFor('restarted pods', () => {
      const live = pods.active('web-');
      return live.length === 6 && live.every((p) => !before.has(p.metadata.uid));
    }, 60_000, 100);
    await rolledOut();
    expect(await env.kubectl('rollout', 'history', 'deployment/web')).toMatch(/\b5\b/);
  }, 120_000);

  it('kubectl delete deployment: its ReplicaSets and pods are garbage collected', async () => {
    await env.kubectl('delete', 'deployment', 'web');
    await waitFor('replica sets to go', async () => (await replicaSets()).length === 0, 30_000, 100);
    await waitFor('pods to go', () => pods.active('web-').length === 0, 30_000, 100);
  }, 60_000);

  it('kubectl autoscale: the autoscaler raises the Deployment to minReplicas through /scale, then reports that it has no metrics', async () => {
    const file = path.join(env.dir, 'php.yaml');
    writeFileSync(file, manifest('php-apache', 1).replaceAll('web', 'php'));
    await env.kubectl('apply', '-f', file);
    expect((await env.kubectl('autoscale', 'deployment', 'php', '--cpu-percent=50', '--min=2', '--max=5')).trim()).toBe('horizontalpodautoscaler.autoscaling/php autoscaled');
    const hpa = () => env.client.get<HorizontalPodAutoscaler>(R.horizontalpodautoscalers, 'default', 'php');
    await waitFor('the Deployment at 2 replicas', async () => (await env.client.get<Deployment>(R.deployments, 'default', 'php')).spec.replicas === 2, 30_000, 100);
    // No metrics-server here: as in a cluster without one, metrics.k8s.io is not served at all.
    const top = await env.kubectl('top', 'pods').then(() => '', (e: unknown) => String((e as { stderr?: unknown }).stderr ?? e));
    expect(top.trim()).toBe('error: Metrics API not available');
    const active = await waitFor('ScalingActive False', async () => (await hpa()).status?.conditions?.find((c) => c.type === 'ScalingActive' && c.status === 'False'), 30_000, 100);
    expect(active).toMatchObject({ reason: 'FailedGetResourceMetric' });
    expect(active.message).toMatch(/^the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: /);
    const st = (await hpa()).status;
    expect(st?.currentReplicas).toBe(2);
    expect(st?.conditions?.find((c) => c.type === 'AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededGetScale' });
    expect(await env.kubectl('get', 'hpa', 'php')).toMatch(/\nphp\s+Deployment\/php\s+cpu: <unknown>\/50%\s+2\s+5\s+2\s+/);
    const described = await env.kubectl('describe', 'hpa', 'php');
    expect(described).toMatch(/Normal\s+SuccessfulRescale\s+.*New size: 2; reason: Current number of replicas below Spec.MinReplicas/);
    expect(described).toMatch(/ScalingActive\s+False\s+FailedGetResourceMetric/);
    await env.kubectl('delete', 'hpa', 'php');
    await env.kubectl('delete', '-f', file);
  }, 60_000);
});

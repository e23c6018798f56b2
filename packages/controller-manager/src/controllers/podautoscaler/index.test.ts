// horizontal-pod-autoscaler-controller against the fake API: the walkthrough's autoscaler (50% CPU, 1–10) on a
// Deployment whose pods' usage comes from the kemu.dev/cpu-usage annotation (what the emulated kubelet reports),
// scale up with Kubernetes' event and status, the downscale stabilization window, the behavior policies, and
// the conditions when the target or its metrics cannot be read.
import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, milliValue, type Condition, type Deployment, type HorizontalPodAutoscaler, type KubeObject, type Pod, type Scale } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { HorizontalController } from './index.ts';
import type { MetricsClient, ScaleClient } from './clients.ts';
import type { PodMetricsInfo } from './replica-calculator.ts';

const CPU_USAGE = 'kemu.dev/cpu-usage';
const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

/** A stand-in for the Deployment and ReplicaSet controllers behind /scale: replicas become Running, Ready pods. */
function scaleClient(env: FakeEnv, usage: () => string): ScaleClient {
  const pods = () => env.api.all<Pod>(R.pods, 'default').filter((p) => p.metadata.labels?.app === 'web');
  let n = 0;
  return {
    async get(ref) {
      const d = await env.api.get<Deployment>(R.deployments, 'default', ref.name);
      return { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: ref.name, namespace: 'default' }, spec: { replicas: d.spec.replicas ?? 1 }, status: { replicas: pods().length, selector: 'app=web' } };
    },
    async update(ref, _ns, scale) {
      const d = await env.api.get<Deployment>(R.deployments, 'default', ref.name);
      const want = scale.spec?.replicas ?? 0;
      await env.api.update(R.deployments, 'default', { ...d, spec: { ...d.spec, replicas: want } });
      while (pods().length < want) await env.api.create(R.pods, 'default', pod(`web-${n++}`, usage(), env.clock.now() - 600_000));
      while (pods().length > want) await env.api.delete(R.pods, 'default', pods()[pods().length - 1]!.metadata.name!);
      return scale;
    },
  };
}

/** metrics.k8s.io as the kubelets would report the annotated usage. */
function metricsClient(env: FakeEnv): MetricsClient {
  return {
    async getResourceMetric(resource) {
      const m: PodMetricsInfo = new Map();
      for (const p of env.api.all<Pod>(R.pods, 'default')) {
        const u = p.metadata.annotations?.[CPU_USAGE];
        if (resource === 'cpu' && u) m.set(p.metadata.name ?? '', { value: milliValue(u), timestamp: env.clock.now(), windowMs: 15_000 });
      }
      if (m.size === 0) throw new Error('no metrics returned from resource metrics API');
      return { metrics: m, timestamp: env.clock.now() };
    },
  };
}

function pod(name: string, usage: string, startedAt: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web' }, annotations: { [CPU_USAGE]: usage } },
    spec: { containers: [{ name: 'php', image: 'php-apache', resources: { requests: { cpu: '200m' } } }] },
    status: { phase: 'Running', startTime: formatTime(startedAt), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(startedAt + 5000) }] },
  } as Pod;
}

const hpa = (extra: Partial<HorizontalPodAutoscaler['spec']> = {}): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'php-apache', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    ...extra,
  },
  status: { desiredReplicas: 0 },
});

async function setup(argv: string[], usage: { value: string }, deployment = true) {
  const env = fakeContext(['--horizontal-pod-autoscaler-sync-period=15s', ...argv]);
  envs.push(env);
  const c = new HorizontalController(env.ctx, { metrics: metricsClient(env), scales: scaleClient(env, () => usage.value) });
  env.informers.start(env.abort.signal);
  void c.run();
  if (deployment) {
    await env.api.create(R.deployments, 'default', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: {} } } as unknown as KubeObject);
    await env.api.create(R.pods, 'default', pod('web-first', usage.value, env.clock.now() - 600_000));
  }
  return env;
}

async function sync(env: FakeEnv, ms = 15_000) {
  await env.clock.advance(ms);
  await settle();
}

const replicas = async (env: FakeEnv) => (await env.api.get<Deployment>(R.deployments, 'default', 'web')).spec.replicas;
const status = async (env: FakeEnv) => (await env.api.get<HorizontalPodAutoscaler>(R.horizontalpodautoscalers, 'default', 'php-apache')).status!;
const condition = async (env: FakeEnv, type: string) => (await status(env)).conditions?.find((c: Condition) => c.type === type);
const setUsage = async (env: FakeEnv, usage: { value: string }, v: string) => {
  usage.value = v;
  for (const p of env.api.all<Pod>(R.pods, 'default')) await env.api.update(R.pods, 'default', { ...p, metadata: { ...p.metadata, annotations: { [CPU_USAGE]: v } } });
};

describe('horizontal-pod-autoscaler-controller', () => {
  it('scales up a period after creation, with SuccessfulRescale and the status kubectl prints', async () => {
    const usage = { value: '300m' };
    const env = await setup([], usage);
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa());
    await sync(env, 14_000);
    expect(await replicas(env)).toBe(1);
    await sync(env, 1000);
    expect(await replicas(env)).toBe(3);
    expect(env.recorder.events).toContainEqual({ object: 'HorizontalPodAutoscaler/php-apache', type: 'Normal', reason: 'SuccessfulRescale', message: 'New size: 3; reason: cpu resource utilization (percentage of request) above target' });
    const st = await status(env);
    expect(st).toMatchObject({ currentReplicas: 1, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 150, averageValue: '300m' } } }] });
    expect(st.lastScaleTime).toBe(formatTime(env.clock.now()));
    expect(st.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 3'],
      ['ScalingActive', 'True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)'],
      ['ScalingLimited', 'False', 'DesiredWithinRange', 'the desired count is within the acceptable range'],
    ]);
    // 3 pods at 150%: 9 wanted, limited to twice the current count; then 18 wanted, limited by maxReplicas.
    await sync(env);
    expect(await replicas(env)).toBe(6);
    expect(await condition(env, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    await sync(env);
    expect(await replicas(env)).toBe(10);
    expect(await condition(env, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'TooManyReplicas' });
  });

  it('scales down only after the downscale stabilization window', async () => {
    const usage = { value: '300m' };
    const env = await setup(['--horizontal-pod-autoscaler-downscale-stabilization=1m'], usage);
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa());
    await sync(env);
    expect(await replicas(env)).toBe(3);
    await setUsage(env, usage, '10m');
    await sync(env);
    expect(await replicas(env)).toBe(3);
    expect(await condition(env, 'AbleToScale')).toMatchObject({ reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    expect((await status(env)).desiredReplicas).toBe(3);
    for (let i = 0; i < 4; i++) await sync(env);
    expect(await replicas(env)).toBe(1);
    expect(env.recorder.events.at(-1)).toMatchObject({ reason: 'SuccessfulRescale', message: 'New size: 1; reason: All metrics below target' });
  });

  it('follows behavior policies: at most 1 pod per minute up', async () => {
    const usage = { value: '900m' };
    const env = await setup([], usage);
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa({ behavior: { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] }, scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } } }));
    await sync(env);
    expect(await replicas(env)).toBe(2);
    await sync(env);
    expect(await replicas(env)).toBe(2);
    expect(await condition(env, 'ScalingLimited')).toMatchObject({ status: 'True', reason: 'ScaleUpLimit' });
    for (let i = 0; i < 3; i++) await sync(env);
    expect(await replicas(env)).toBe(3);
  });

  it('reports a target it cannot read and metrics it cannot get', async () => {
    const usage = { value: '300m' };
    const env = await setup([], usage, false);
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa());
    await sync(env);
    expect(await condition(env, 'AbleToScale')).toMatchObject({ status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: deployments.apps "web" not found` });
    expect(env.recorder.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'FailedGetScale', message: 'deployments.apps "web" not found' }));

    await env.api.create(R.deployments, 'default', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: {} } } as unknown as KubeObject);
    await sync(env);
    const inner = 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API';
    expect(await condition(env, 'ScalingActive')).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${inner}` });
    expect(env.recorder.events).toContainEqual(expect.objectContaining({ reason: 'FailedGetResourceMetric', message: inner }));
    expect(env.recorder.events).toContainEqual(expect.objectContaining({ reason: 'FailedComputeMetricsReplicas', message: `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${inner}` }));
    expect(await status(env)).toMatchObject({ currentReplicas: 1, desiredReplicas: 0, currentMetrics: [{ type: '' }] });
  });

  it('two autoscalers over the same pods: both AmbiguousSelector, neither scales; one deleted, the other scales again', async () => {
    const usage = { value: '300m' };
    const env = await setup([], usage);
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa());
    const second = hpa();
    second.metadata.name = 'second';
    await env.api.create(R.horizontalpodautoscalers, 'default', second);
    await sync(env);
    await sync(env);
    const message = 'pods by selector app=web are controlled by multiple HPAs: [default/php-apache default/second]';
    for (const name of ['php-apache', 'second']) {
      const st = (await env.api.get<HorizontalPodAutoscaler>(R.horizontalpodautoscalers, 'default', name)).status!;
      expect(st.conditions?.find((c) => c.type === 'ScalingActive')).toMatchObject({ status: 'False', reason: 'AmbiguousSelector', message });
      expect(env.recorder.events).toContainEqual({ object: `HorizontalPodAutoscaler/${name}`, type: 'Warning', reason: 'AmbiguousSelector', message });
    }
    const before = await replicas(env);
    await sync(env);
    expect(await replicas(env)).toBe(before);

    await env.api.delete(R.horizontalpodautoscalers, 'default', 'second');
    await sync(env);
    await sync(env);
    expect(await condition(env, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
    expect(await replicas(env)).toBeGreaterThan(before!);
  });

  it('a Pods metric without a custom metrics API is reported, the cpu metric still scales up', async () => {
    const usage = { value: '300m' };
    const env = await setup([], usage);
    const pods = { type: 'Pods' as const, pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue' as const, averageValue: '1k' } } };
    await env.api.create(R.horizontalpodautoscalers, 'default', hpa({ metrics: [pods, ...hpa().spec.metrics!] }));
    await sync(env);
    expect(await replicas(env)).toBe(3);
    expect(env.recorder.events).toContainEqual(expect.objectContaining({ reason: 'FailedGetPodsMetric', message: 'unable to get metric packets-per-second: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered' }));
  });
});

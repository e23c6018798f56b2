// Probes through a real kubelet process and a real apiserver: a pod whose readiness probe fails stays
// Running but NotReady (Ready/ContainersReady False, ContainersNotReady); a pod whose liveness probe fails is
// killed and restarted (restartCount, lastState 137 Error) with the kubelet's Unhealthy and Killing events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CoreEvent, type Pod } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { startCluster, startKubelet, type TestCluster } from './cluster.ts';

let cluster: TestCluster;
const NODE = 'probe-node';

beforeAll(async () => {
  cluster = await startCluster();
  startKubelet(cluster, [`--hostname-override=${NODE}`, '--node-status-update-frequency=1s']);
});
afterAll(async () => cluster?.close());

async function createPod(name: string, spec: Pod['spec'], annotations?: Record<string, string>): Promise<void> {
  await cluster.client.create(R.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { nodeName: NODE, ...spec } } as Pod);
}

async function podEvents(pod: Pod): Promise<CoreEvent[]> {
  const fieldSelector = `involvedObject.name=${pod.metadata.name},involvedObject.namespace=default,involvedObject.uid=${pod.metadata.uid}`;
  return (await cluster.client.list<CoreEvent>(R.events, 'default', { fieldSelector })).items;
}

describe('kubelet probes', () => {
  it('a failing readiness probe keeps the pod Running but not Ready, with Unhealthy events', async () => {
    await createPod('unready', { containers: [{ name: 'web', image: 'nginx:1.27', readinessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1 } }] });
    // Several failed probes later the pod is still not ready.
    const pod = await waitFor('three Unhealthy probes', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'unready');
      if (p.status?.phase !== 'Running') return undefined;
      const unhealthy = (await podEvents(p)).find((e) => e.reason === 'Unhealthy');
      return (unhealthy?.count ?? 0) >= 3 ? p : undefined;
    }, 20_000);
    const latest = await cluster.client.get<Pod>(R.pods, 'default', 'unready');
    expect(latest.status?.containerStatuses?.[0]).toMatchObject({ ready: false, started: true, restartCount: 0 });
    for (const type of ['Ready', 'ContainersReady']) {
      expect(latest.status?.conditions?.find((c) => c.type === type)).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]' });
    }
    const ev = (await podEvents(pod)).find((e) => e.reason === 'Unhealthy');
    expect(ev).toMatchObject({ type: 'Warning', message: 'Readiness probe failed: ', involvedObject: { fieldPath: 'spec.containers{web}' }, source: { component: 'kubelet', host: NODE } });
  });

  it('a failing liveness probe kills and restarts the container', async () => {
    await createPod(
      'unlive',
      { containers: [{ name: 'web', image: 'nginx:1.27', livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 1, failureThreshold: 2 } }] },
      { 'kemu.dev/liveness-probe-fail-after': '1' },
    );
    const pod = await waitFor('restarted', async () => {
      const p = await cluster.client.get<Pod>(R.pods, 'default', 'unlive');
      return (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 ? p : undefined;
    }, 20_000);
    expect(pod.status?.phase).toBe('Running');
    expect(pod.status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
    const evs = await waitFor('Unhealthy and Killing events', async () => {
      const items = await podEvents(pod);
      return items.some((e) => e.reason === 'Killing') && items.some((e) => e.reason === 'Unhealthy') ? items : undefined;
    });
    expect(evs.find((e) => e.reason === 'Unhealthy')).toMatchObject({ type: 'Warning', message: 'Liveness probe failed: HTTP probe failed with statuscode: 500' });
    expect(evs.find((e) => e.reason === 'Killing')).toMatchObject({ type: 'Normal', message: 'Container web failed liveness probe, will be restarted' });
  });
});

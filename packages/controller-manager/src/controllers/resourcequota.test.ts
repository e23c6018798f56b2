// resourcequota-controller: status.hard and status.used from the namespace's pods and objects.
import { afterEach, describe, expect, it } from 'vitest';
import { R, type Pod, type ResourceQuota } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { ResourceQuotaController } from './resourcequota.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const pod = (name: string, cpu: string, phase = 'Running'): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu, memory: '64Mi' }, limits: { cpu } } }] },
    status: { phase },
  }) as Pod;

describe('resourcequota-controller', () => {
  it('counts compute resources of live pods and objects by count/ and classic names', async () => {
    const env = fakeContext(['--resource-quota-sync-period=0']);
    envs.push(env);
    const c = new ResourceQuotaController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await env.api.create(R.pods, 'default', pod('a', '250m'));
    await env.api.create(R.pods, 'default', pod('b', '500m'));
    await env.api.create(R.pods, 'default', pod('done', '1', 'Succeeded'));
    await env.api.create(R.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
    const hard = { pods: '10', 'requests.cpu': '2', 'requests.memory': '1Gi', 'limits.cpu': '4', 'count/pods': '20', configmaps: '5', 'count/deployments.apps': '3' };
    await env.api.create(R.resourcequotas, 'default', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard } });
    await settle();
    const q = await env.api.get<ResourceQuota>(R.resourcequotas, 'default', 'q');
    expect(q.status).toEqual({
      hard,
      used: { pods: '2', 'requests.cpu': '750m', 'requests.memory': '128Mi', 'limits.cpu': '750m', 'count/pods': '3', configmaps: '1', 'count/deployments.apps': '0' },
    });
    await env.api.delete(R.pods, 'default', 'b');
    await settle();
    expect((await env.api.get<ResourceQuota>(R.resourcequotas, 'default', 'q')).status?.used).toMatchObject({ pods: '1', 'requests.cpu': '250m' });
  });

  it('follows the objects it counts as they come, change their charge and go (no resync)', async () => {
    const env = fakeContext(['--resource-quota-sync-period=0']);
    envs.push(env);
    const c = new ResourceQuotaController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    const hard = { configmaps: '5', 'services.nodeports': '4', 'requests.storage': '10Gi' };
    await env.api.create(R.resourcequotas, 'default', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard } });
    await settle();
    const used = async () => (await env.api.get<ResourceQuota>(R.resourcequotas, 'default', 'q')).status?.used;
    expect(await used()).toEqual({ configmaps: '0', 'services.nodeports': '0', 'requests.storage': '0' });
    await env.api.create(R.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
    const svc = await env.api.create(R.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec: { ports: [{ port: 80 }, { port: 81 }] } });
    const pvc = await env.api.create(R.persistentvolumeclaims, 'default', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'd', namespace: 'default' },
      spec: { resources: { requests: { storage: '1Gi' } } },
    });
    await settle();
    expect(await used()).toEqual({ configmaps: '1', 'services.nodeports': '0', 'requests.storage': '1Gi' });
    await env.api.update(R.services, 'default', { ...svc, spec: { ...(svc.spec as object), type: 'NodePort' } });
    await env.api.update(R.persistentvolumeclaims, 'default', { ...pvc, spec: { resources: { requests: { storage: '3Gi' } } } });
    await env.api.delete(R.configmaps, 'default', 'x');
    await settle();
    expect(await used()).toEqual({ configmaps: '0', 'services.nodeports': '2', 'requests.storage': '3Gi' });
  });
});

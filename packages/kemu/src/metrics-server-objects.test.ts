// What `kemu up` makes for its metrics-servers: components.yaml's objects and the Service's Endpoints listing the
// processes; a second start keeps the user's objects, rewrites the Endpoints to the new processes and replaces the
// Local APIService earlier kemu apiservers served metrics.k8s.io with. Without addresses (the compose lab before its
// container runs) only the addon's objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject } from '@kemu/api';
import { RestClient } from '@kemu/client';
import type { ApiServer } from '@kemu/apiserver';
import { startMemoryApiServer } from '../../apiserver/src/testing/memory-server.ts';
import { ensureMetricsServerObjects } from './metrics-server-objects.ts';

let srv: ApiServer;
let client: RestClient;
beforeAll(async () => {
  srv = await startMemoryApiServer();
  client = new RestClient({ server: await srv.app.listen({ host: '127.0.0.1', port: 0 }), qps: -1 }, { maxRetries: 0 });
});
afterAll(async () => {
  await client?.close();
  await srv?.close();
});

describe('metrics-server objects', () => {
  it('makes components.yaml objects and the Endpoints; a restart keeps them and moves the Endpoints', async () => {
    // A Local APIService as earlier kemu apiservers registered it.
    await client.create(R.apiservices, undefined, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
      spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100 },
    });
    const made = await ensureMetricsServerObjects(client, ['127.0.0.70', '127.0.0.71'], 10250);
    expect(made).toEqual([
      'ServiceAccount kube-system/metrics-server',
      'ClusterRole system:aggregated-metrics-reader',
      'RoleBinding kube-system/metrics-server-auth-reader',
      'ClusterRoleBinding metrics-server:system:auth-delegator',
      'ClusterRole system:metrics-server',
      'ClusterRoleBinding system:metrics-server',
      'Service kube-system/metrics-server',
      'APIService v1beta1.metrics.k8s.io (replaced the Local one)',
      'Endpoints kube-system/metrics-server',
    ]);
    const api = await client.get<KubeObject & { spec: Record<string, unknown> }>(R.apiservices, undefined, 'v1beta1.metrics.k8s.io');
    expect(api.metadata.labels).toEqual({ 'k8s-app': 'metrics-server', 'addonmanager.kubernetes.io/mode': 'Reconcile' });
    expect(api.spec).toMatchObject({ service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, insecureSkipTLSVerify: true });
    const reader = await client.get<KubeObject>(R.clusterroles, undefined, 'system:aggregated-metrics-reader');
    expect(reader.metadata.labels).toMatchObject({ 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });

    expect(await ensureMetricsServerObjects(client, ['127.0.0.70', '127.0.0.71'], 10250)).toEqual([]);
    expect(await ensureMetricsServerObjects(client, ['127.0.0.70'], 40123)).toEqual(['Endpoints kube-system/metrics-server (updated)']);
    const ep = await client.get<KubeObject>(R.endpoints, 'kube-system', 'metrics-server');
    expect(ep.subsets).toEqual([{ addresses: [{ ip: '127.0.0.70' }], ports: [{ name: 'https', port: 40123, protocol: 'TCP' }] }]);
  });

  it('without addresses (the compose lab before its container runs): the addon objects only, the Endpoints left as they are', async () => {
    await client.delete(R.clusterrolebindings, undefined, 'metrics-server:system:auth-delegator');
    expect(await ensureMetricsServerObjects(client, [], 10250)).toEqual(['ClusterRoleBinding metrics-server:system:auth-delegator']);
    const ep = await client.get<KubeObject>(R.endpoints, 'kube-system', 'metrics-server');
    expect(ep.subsets).toEqual([{ addresses: [{ ip: '127.0.0.70' }], ports: [{ name: 'https', port: 40123, protocol: 'TCP' }] }]);
    await client.delete(R.endpoints, 'kube-system', 'metrics-server');
    expect(await ensureMetricsServerObjects(client, [], 10250)).toEqual([]);
    await expect(client.get(R.endpoints, 'kube-system', 'metrics-server')).rejects.toMatchObject({ reason: 'NotFound' });
  });
});

// Storage and pod dependencies with real processes (apiserver, controller-manager, scheduler, one kubelet):
// a claim of the default class binds once a pod uses it (WaitForFirstConsumer, the emulated local-path
// provisioner) and the pod runs; its volume goes with the claim; a pod whose ConfigMap is missing waits in
// CreateContainerConfigError and runs once `kubectl create configmap` makes it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type CoreEvent, type KubeObject, type PersistentVolume, type PersistentVolumeClaim, type Pod } from '@kemu/api';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { startCluster, startKubelet, type TestCluster } from '../kubelet/cluster.ts';

const run = promisify(execFile);
const NODE = 'storage-node';
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
  const common = [`--master=${cluster.url}`, '--leader-elect=false', '--secure-port=0'];
  cluster.procs.push(startProcess('kube-controller-manager', BIN.controllerManager, [...common, '--controllers=persistentvolume-binder,pvc-protection,pv-protection']));
  cluster.procs.push(startProcess('kube-scheduler', BIN.scheduler, common));
  startKubelet(cluster, [`--hostname-override=${NODE}`, '--node-status-update-frequency=1s', '--image-pull-delay=20ms']);
  await cluster.client.create(R.storageclasses, undefined, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  } as KubeObject);
  await waitFor('node registered', async () => (await cluster.client.get(R.nodes, undefined, NODE)).metadata.uid);
}, 60_000);
afterAll(async () => cluster?.close());

const events = async (name: string) =>
  (await cluster.client.list<CoreEvent>(R.events, 'default')).items.filter((e) => e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);

describe('storage', () => {
  it('binds a default-class claim once a pod uses it, runs the pod, and deletes the volume with the claim', async () => {
    const { client } = cluster;
    const pvc = await client.create<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(pvc.spec.storageClassName).toBe('standard');
    expect(pvc.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect(await waitFor('WaitForFirstConsumer', async () => (await events('data')).find((e) => e.startsWith('WaitForFirstConsumer')))).toBe(
      'WaitForFirstConsumer: waiting for first consumer to be created before binding',
    );

    await client.create<Pod>(R.pods, 'default', {
      metadata: { name: 'user' },
      spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }], terminationGracePeriodSeconds: 0 },
    });
    const running = await waitFor('pod Running', async () => {
      const p = await client.get<Pod>(R.pods, 'default', 'user');
      return p.status?.phase === 'Running' ? p : undefined;
    });
    expect(running.spec.nodeName).toBe(NODE);
    const bound = await client.get<PersistentVolumeClaim>(R.persistentvolumeclaims, 'default', 'data');
    expect(bound.status?.phase).toBe('Bound');
    expect(bound.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(NODE);
    const pv = await client.get<PersistentVolume>(R.persistentvolumes, undefined, bound.spec.volumeName ?? '');
    expect(pv.spec.claimRef?.name).toBe('data');
    expect(pv.status?.phase).toBe('Bound');
    expect(await events('data')).toContain(`ProvisioningSucceeded: Successfully provisioned volume ${pv.metadata.name ?? ''}`);

    await client.delete(R.persistentvolumeclaims, 'default', 'data');
    await client.delete(R.pods, 'default', 'user', { gracePeriodSeconds: 0 });
    await waitFor('claim and volume gone', async () => {
      const claims = (await client.list(R.persistentvolumeclaims, 'default')).items.length;
      const volumes = (await client.list(R.persistentvolumes)).items.length;
      return claims === 0 && volumes === 0 ? true : undefined;
    });
  }, 60_000);

  it('keeps a pod whose ConfigMap is missing in CreateContainerConfigError until kubectl creates it', async () => {
    const { client } = cluster;
    await client.create<Pod>(R.pods, 'default', {
      metadata: { name: 'needs-config' },
      spec: {
        containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }] }],
        terminationGracePeriodSeconds: 0,
      },
    });
    const waiting = await waitFor('CreateContainerConfigError', async () => {
      const p = await client.get<Pod>(R.pods, 'default', 'needs-config');
      const w = p.status?.containerStatuses?.[0]?.state?.waiting;
      return w?.reason === 'CreateContainerConfigError' ? w : undefined;
    });
    expect(waiting.message).toBe('configmap "settings" not found');
    await run('kubectl', ['--server', cluster.url, 'create', 'configmap', 'settings', '--from-literal=mode=fast'], { env: { ...process.env, KUBECONFIG: '/dev/null' } });
    await waitFor('Running', async () => ((await client.get<Pod>(R.pods, 'default', 'needs-config')).status?.phase === 'Running' ? true : undefined));
    expect(await events('needs-config')).toContain('Failed: Error: configmap "settings" not found');
  }, 60_000);
});

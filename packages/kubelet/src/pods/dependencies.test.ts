import { describe, expect, it } from 'vitest';
import { StatusError, type KubeObject, type Pod, type ResourceInfo } from '@kemu/api';
import { configFailures, mountFailures } from './dependencies.ts';

const objects: Record<string, KubeObject> = {
  'configmaps/cfg': { metadata: { name: 'cfg' }, data: { a: '1' } } as KubeObject,
  'persistentvolumeclaims/pending': { metadata: { name: 'pending' }, spec: {}, status: { phase: 'Pending' } } as KubeObject,
};
const client = {
  get: async (r: ResourceInfo, _ns: string | undefined, name: string) => {
    const o = objects[`${r.plural}/${name}`];
    if (!o) throw new StatusError('NotFound', `${r.plural} "${name}" not found`);
    return o;
  },
} as unknown as Parameters<typeof mountFailures>[0];

const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

describe('pod dependencies', () => {
  it('names each volume whose source is missing, as MountVolume.SetUp does', async () => {
    const p = pod({
      volumes: [
        { name: 'ok', configMap: { name: 'cfg' } },
        { name: 'cfg', configMap: { name: 'x' } },
        { name: 'maybe', configMap: { name: 'x', optional: true } },
        { name: 'sec', secret: { secretName: 's' } },
        { name: 'data', persistentVolumeClaim: { claimName: 'pending' } },
      ],
    });
    expect((await mountFailures(client, p)).map((f) => f.message)).toEqual([
      'MountVolume.SetUp failed for volume "cfg" : configmap "x" not found',
      'MountVolume.SetUp failed for volume "sec" : secret "s" not found',
      'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: error processing PVC default/pending: PVC is not bound',
    ]);
  });

  it("gives the kubelet's CreateContainerConfigError messages for env and envFrom", async () => {
    const p = pod({
      containers: [
        { name: 'a', image: 'busybox', envFrom: [{ configMapRef: { name: 'x' } }] } as Pod['spec']['containers'][number],
        { name: 'b', image: 'busybox', env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] } as Pod['spec']['containers'][number],
        { name: 'c', image: 'busybox', env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'nope' } } }] } as Pod['spec']['containers'][number],
        { name: 'd', image: 'busybox', env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }] } as Pod['spec']['containers'][number],
      ],
    });
    expect(await configFailures(client, p)).toEqual([
      { container: 'a', init: false, message: 'configmap "x" not found' },
      { container: 'b', init: false, message: 'secret "s" not found' },
      { container: 'c', init: false, message: "couldn't find key nope in ConfigMap default/cfg" },
    ]);
  });
});

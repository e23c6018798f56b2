import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@kemu/api';
import { CycleState } from '../framework/cycle-state.ts';
import type { VolumeLister } from '../framework/interface.ts';
import { PodInfo } from '../framework/pod-info.ts';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { runFilter } from '../testing/run-plugin.ts';
import { ErrReasonNodeConflict, ErrUnboundImmediate, VolumeBinding } from './volume-binding.ts';

const classes: Record<string, StorageClass> = {
  standard: { metadata: { name: 'standard' }, provisioner: 'rancher.io/local-path', volumeBindingMode: 'WaitForFirstConsumer' },
  fast: { metadata: { name: 'fast' }, provisioner: 'example.com/fast', volumeBindingMode: 'Immediate' },
  local: { metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' },
};
const claim = (name: string, cls: string, volumeName?: string): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec: { storageClassName: cls, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(volumeName ? { volumeName } : {}) },
});
const onNode = (name: string, node: string, cls = ''): PersistentVolume => ({
  metadata: { name },
  spec: {
    storageClassName: cls,
    capacity: { storage: '5Gi' },
    accessModes: ['ReadWriteOnce'],
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
  },
});

function lister(claims: PersistentVolumeClaim[], volumes: PersistentVolume[], calls: string[] = []): VolumeLister {
  return {
    claim: (ns, n) => claims.find((c) => c.metadata.namespace === ns && c.metadata.name === n),
    volume: (n) => volumes.find((v) => v.metadata.name === n),
    volumes: () => volumes,
    storageClass: (n) => classes[n],
    selectNode: async (c, node) => {
      calls.push(`select ${c.metadata.name ?? ''} ${node}`);
      c.spec.volumeName = 'provisioned';
    },
    preBind: async (v, c) => {
      calls.push(`prebind ${v.metadata.name ?? ''} ${c.metadata.name ?? ''}`);
      c.spec.volumeName = v.metadata.name ?? '';
    },
  };
}
const nodes = [makeNode('n1', { labels: { 'kubernetes.io/hostname': 'n1' } }), makeNode('n2', { labels: { 'kubernetes.io/hostname': 'n2' } })];
const podWith = (...claims: string[]) => {
  const p = makePod('p');
  p.spec.volumes = claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } }));
  return p;
};

describe('VolumeBinding', () => {
  it('turns away a pod with an unbound Immediate claim, a missing claim or one being deleted', () => {
    const plugin = new VolumeBinding({ volumeLister: lister([claim('imm', 'fast'), { ...claim('gone', 'standard'), metadata: { name: 'gone', namespace: 'default', deletionTimestamp: 'x' } }], []), clock: new FakeClock(), snapshot: () => cacheWith(nodes) });
    expect(runFilter(plugin, podWith('imm'), cacheWith(nodes)).n1).toEqual({ code: 'UnschedulableAndUnresolvable', reasons: ErrUnboundImmediate });
    expect(runFilter(plugin, podWith('nope'), cacheWith(nodes)).n1).toEqual({ code: 'UnschedulableAndUnresolvable', reasons: 'persistentvolumeclaim "nope" not found' });
    expect(runFilter(plugin, podWith('gone'), cacheWith(nodes)).n1).toEqual({ code: 'UnschedulableAndUnresolvable', reasons: 'persistentvolumeclaim "gone" is being deleted' });
  });

  it("keeps a pod with a bound claim on its volume's node and lets a provisioning class go anywhere", () => {
    const plugin = new VolumeBinding({ volumeLister: lister([claim('b', '', 'pv1'), claim('w', 'standard')], [onNode('pv1', 'n2')]), clock: new FakeClock(), snapshot: () => cacheWith(nodes) });
    expect(runFilter(plugin, podWith('b'), cacheWith(nodes))).toEqual({ n1: { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonNodeConflict }, n2: 'ok' });
    expect(runFilter(plugin, podWith('w'), cacheWith(nodes))).toEqual({ n1: 'ok', n2: 'ok' });
  });

  it('with no provisioner, needs a local volume on the node, pre-binds it and waits for the bind', async () => {
    const calls: string[] = [];
    const l = lister([claim('l', 'local'), claim('w', 'standard')], [onNode('local-n2', 'n2', 'local')], calls);
    const cache = cacheWith(nodes);
    const plugin = new VolumeBinding({ volumeLister: l, clock: new FakeClock(), snapshot: () => cache });
    expect(runFilter(plugin, podWith('l'), cache)).toEqual({ n1: { code: 'Unschedulable', reasons: "node(s) didn't find available persistent volumes to bind" }, n2: 'ok' });
    const state = new CycleState();
    const pod = new PodInfo(podWith('l', 'w'));
    expect(plugin.preFilter(state, pod)).toBeNull();
    expect(await plugin.preBind(state, pod, 'n2')).toBeNull();
    expect(calls).toEqual(['prebind local-n2 l', 'select w n2']);
  });
});

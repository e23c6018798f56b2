import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim, Pod, Volume } from '@kemu/api';
import { CycleState } from '../framework/cycle-state.ts';
import type { VolumeLister } from '../framework/interface.ts';
import { PodInfo } from '../framework/pod-info.ts';
import { runFilter } from '../testing/run-plugin.ts';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { ErrReasonDiskConflict, ErrReasonReadWriteOncePodConflict, VolumeRestrictions } from './volume-restrictions.ts';

const claim = (name: string, mode: 'ReadWriteOnce' | 'ReadWriteOncePod'): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec: { accessModes: [mode] },
});
const claims = [claim('rwop', 'ReadWriteOncePod'), claim('rwo', 'ReadWriteOnce')];
const lister = { claim: (ns: string, n: string) => claims.find((c) => c.metadata.name === n && ns === 'default') } as unknown as VolumeLister;
const withVolumes = (name: string, volumes: Volume[], nodeName?: string, namespace?: string): Pod => {
  const p = makePod(name, { nodeName, namespace });
  p.spec.volumes = volumes;
  return p;
};
const pvc = (claimName: string): Volume => ({ name: claimName, persistentVolumeClaim: { claimName } });
const gce = (pdName: string, readOnly = false): Volume => ({ name: 'd', gcePersistentDisk: { pdName, readOnly } });
const ebs = (volumeID: string): Volume => ({ name: 'd', awsElasticBlockStore: { volumeID } });
const iscsi = (iqn: string, readOnly = false): Volume => ({ name: 'd', iscsi: { iqn, targetPortal: 'p', lun: 0, readOnly } });
const rbd = (monitors: string[], image: string, pool?: string): Volume => ({ name: 'd', rbd: { monitors, image, pool } });

const nodes = [makeNode('n1'), makeNode('n2')];
const plugin = () => new VolumeRestrictions({ volumeLister: lister });
const disk = { code: 'Unschedulable', reasons: ErrReasonDiskConflict };
const rwop = { code: 'Unschedulable', reasons: ErrReasonReadWriteOncePodConflict };

describe('VolumeRestrictions', () => {
  it.each([
    ['no volumes', withVolumes('p', []), [], { n1: 'ok', n2: 'ok' }],
    ['same GCE PD read-write', withVolumes('p', [gce('pd')]), [withVolumes('e', [gce('pd')], 'n1')], { n1: disk, n2: 'ok' }],
    ['same GCE PD both read-only', withVolumes('p', [gce('pd', true)]), [withVolumes('e', [gce('pd', true)], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['other GCE PD', withVolumes('p', [gce('pd')]), [withVolumes('e', [gce('other')], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['same EBS volume', withVolumes('p', [ebs('vol-1')]), [withVolumes('e', [ebs('vol-1')], 'n2')], { n1: 'ok', n2: disk }],
    ['same iSCSI iqn', withVolumes('p', [iscsi('iqn.a')]), [withVolumes('e', [iscsi('iqn.a')], 'n1')], { n1: disk, n2: 'ok' }],
    ['same iSCSI iqn read-only', withVolumes('p', [iscsi('iqn.a', true)]), [withVolumes('e', [iscsi('iqn.a', true)], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['same RBD image, overlapping monitors', withVolumes('p', [rbd(['m1', 'm2'], 'img')]), [withVolumes('e', [rbd(['m2'], 'img', 'rbd')], 'n1')], { n1: disk, n2: 'ok' }],
    ['RBD image in another pool', withVolumes('p', [rbd(['m1'], 'img', 'a')]), [withVolumes('e', [rbd(['m1'], 'img', 'b')], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['ReadWriteOncePod claim used elsewhere', withVolumes('p', [pvc('rwop')]), [withVolumes('e', [pvc('rwop')], 'n1')], { n1: rwop, n2: rwop }],
    ['ReadWriteOncePod claim unused', withVolumes('p', [pvc('rwop')]), [withVolumes('e', [pvc('rwo')], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['same-named claim in another namespace', withVolumes('p', [pvc('rwop')]), [withVolumes('e', [pvc('rwop')], 'n1', 'other')], { n1: 'ok', n2: 'ok' }],
    ['ReadWriteOnce claim shared', withVolumes('p', [pvc('rwo')]), [withVolumes('e', [pvc('rwo')], 'n1')], { n1: 'ok', n2: 'ok' }],
    ['missing claim', withVolumes('p', [pvc('gone')]), [], { n1: { code: 'UnschedulableAndUnresolvable', reasons: 'persistentvolumeclaim "gone" not found' }, n2: { code: 'UnschedulableAndUnresolvable', reasons: 'persistentvolumeclaim "gone" not found' } }],
  ] as const)('%s', (_name, pod, existing, want) => {
    expect(runFilter(plugin(), pod, cacheWith(nodes, [...existing]))).toEqual(want);
  });

  it('preemption dry runs: removing the pod that holds the ReadWriteOncePod claim clears the conflict', () => {
    const holder = withVolumes('holder', [pvc('rwop')], 'n1');
    const cache = cacheWith(nodes, [holder]);
    const pl = plugin();
    const state = new CycleState();
    const pod = new PodInfo(withVolumes('p', [pvc('rwop')]));
    expect(pl.preFilter(state, pod, cache.nodeInfos())).toBeNull();
    const n1 = cache.nodeInfos().find((n) => n.name === 'n1')!;
    expect(pl.filter(state, pod, n1)?.message()).toBe(ErrReasonReadWriteOncePodConflict);
    pl.removePod(state, pod, new PodInfo(holder));
    expect(pl.filter(state, pod, n1)).toBeNull();
    pl.addPod(state, pod, new PodInfo(holder));
    expect(pl.filter(state, pod, n1)?.message()).toBe(ErrReasonReadWriteOncePodConflict);
  });
});

import { describe, expect, it } from 'vitest';
import type { CSINode, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@kemu/api';
import type { VolumeLister } from '../framework/interface.ts';
import { runFilter } from '../testing/run-plugin.ts';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { ErrReasonMaxVolumeCountExceeded, NodeVolumeLimits } from './node-volume-limits.ts';

const DRIVER = 'ebs.csi.aws.com';
const pv = (name: string, handle: string, driver = DRIVER): PersistentVolume => ({ metadata: { name }, spec: { csi: { driver, volumeHandle: handle } } });
const bound = (name: string, volumeName: string): PersistentVolumeClaim => ({ metadata: { name, namespace: 'default' }, spec: { volumeName } });
const volumes = [pv('pv-1', 'h1'), pv('pv-2', 'h2'), pv('pv-3', 'h3'), pv('pv-other', 'x1', 'other.csi'), { metadata: { name: 'pv-host' }, spec: { hostPath: { path: '/x' } } } as PersistentVolume];
const claims: PersistentVolumeClaim[] = [
  bound('c1', 'pv-1'),
  bound('c2', 'pv-2'),
  bound('c3', 'pv-3'),
  bound('cother', 'pv-other'),
  bound('chost', 'pv-host'),
  { metadata: { name: 'unbound', namespace: 'default' }, spec: { storageClassName: 'csi' } },
];
const classes: StorageClass[] = [{ metadata: { name: 'csi' }, provisioner: DRIVER }];
const csiNodes: CSINode[] = [
  { metadata: { name: 'two' }, spec: { drivers: [{ name: DRIVER, nodeID: 'i-2', allocatable: { count: 2 } }] } },
  { metadata: { name: 'nolimit' }, spec: { drivers: [{ name: DRIVER, nodeID: 'i-3' }] } },
];
const lister = {
  claim: (ns: string, n: string) => claims.find((c) => c.metadata.name === n && ns === 'default'),
  volume: (n: string) => volumes.find((v) => v.metadata.name === n),
  storageClass: (n: string) => classes.find((c) => c.metadata.name === n),
  csiNode: (n: string) => csiNodes.find((c) => c.metadata.name === n),
} as unknown as VolumeLister;

const nodes = [makeNode('two'), makeNode('nolimit'), makeNode('alloc', { allocatable: { cpu: '4', pods: '110', [`attachable-volumes-csi-${DRIVER}`]: '1' } })];
const withClaims = (name: string, names: string[], nodeName?: string): Pod => {
  const p = makePod(name, { nodeName });
  p.spec.volumes = names.map((claimName) => ({ name: claimName, persistentVolumeClaim: { claimName } }));
  return p;
};
const full = { code: 'Unschedulable', reasons: ErrReasonMaxVolumeCountExceeded };

describe('NodeVolumeLimits', () => {
  it.each([
    ['within the CSINode limit', withClaims('p', ['c1', 'c2']), [], { two: 'ok', nolimit: 'ok', alloc: full }],
    ['one over the CSINode limit', withClaims('p', ['c3']), [withClaims('e', ['c1', 'c2'], 'two')], { two: full, nolimit: 'ok', alloc: 'ok' }],
    ['a volume already attached for another pod is not counted twice', withClaims('p', ['c1', 'c2']), [withClaims('e', ['c1'], 'two')], { two: 'ok', nolimit: 'ok', alloc: full }],
    ['other drivers have their own limit', withClaims('p', ['cother']), [withClaims('e', ['c1', 'c2'], 'two')], { two: 'ok', nolimit: 'ok', alloc: 'ok' }],
    ['non-CSI volumes are not counted', withClaims('p', ['chost']), [withClaims('e', ['c1', 'c2'], 'two')], { two: 'ok', nolimit: 'ok', alloc: 'ok' }],
    ['an unbound claim counts under its class provisioner', withClaims('p', ['unbound']), [withClaims('e', ['c1', 'c2'], 'two'), withClaims('f', ['c1'], 'alloc')], { two: full, nolimit: 'ok', alloc: full }],
    ['no claims: skipped', makePod('p'), [withClaims('e', ['c1', 'c2', 'c3'], 'two')], { two: 'ok', nolimit: 'ok', alloc: 'ok' }],
    [
      'a missing claim is unresolvable',
      withClaims('p', ['gone']),
      [],
      Object.fromEntries(['two', 'nolimit', 'alloc'].map((n) => [n, { code: 'UnschedulableAndUnresolvable', reasons: 'looking up PVC default/gone: persistentvolumeclaim "gone" not found' }])),
    ],
  ] as const)('%s', (_name, pod, existing, want) => {
    expect(runFilter(new NodeVolumeLimits({ volumeLister: lister }), pod, cacheWith(nodes, [...existing]))).toEqual(want);
  });
});

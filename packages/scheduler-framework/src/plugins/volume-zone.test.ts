import { describe, expect, it } from 'vitest';
import type { PersistentVolume, PersistentVolumeClaim } from '@kemu/api';
import type { VolumeLister } from '../framework/interface.ts';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { runFilter } from '../testing/run-plugin.ts';
import { ErrReasonConflict, VolumeZone } from './volume-zone.ts';

const pv = (name: string, labels: Record<string, string>): PersistentVolume => ({ metadata: { name, labels }, spec: {} });
const claim = (name: string, volumeName?: string): PersistentVolumeClaim => ({ metadata: { name, namespace: 'default' }, spec: volumeName ? { volumeName } : {} });
const volumes = [
  pv('pv-a', { 'topology.kubernetes.io/zone': 'zone-a' }),
  pv('pv-ab', { 'topology.kubernetes.io/zone': 'zone-a__zone-b', 'topology.kubernetes.io/region': 'r1' }),
  pv('pv-beta', { 'failure-domain.beta.kubernetes.io/zone': 'zone-b' }),
  pv('pv-none', {}),
];
const claims = [claim('a', 'pv-a'), claim('ab', 'pv-ab'), claim('beta', 'pv-beta'), claim('none', 'pv-none'), claim('unbound')];
const lister = { claim: (ns: string, n: string) => claims.find((c) => c.metadata.name === n && ns === 'default'), volume: (n: string) => volumes.find((v) => v.metadata.name === n) } as unknown as VolumeLister;
const nodes = [
  makeNode('na', { labels: { 'topology.kubernetes.io/zone': 'zone-a', 'topology.kubernetes.io/region': 'r1' } }),
  makeNode('nb', { labels: { 'topology.kubernetes.io/zone': 'zone-b', 'topology.kubernetes.io/region': 'r1' } }),
  makeNode('nc', { labels: { 'topology.kubernetes.io/zone': 'zone-c', 'topology.kubernetes.io/region': 'r2' } }),
  makeNode('bare'),
];
const podWith = (c: string) => {
  const p = makePod('p');
  p.spec.volumes = [{ name: c, persistentVolumeClaim: { claimName: c } }];
  return p;
};
const no = { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonConflict };

describe('VolumeZone', () => {
  it.each([
    ['a', { na: 'ok', nb: no, nc: no, bare: 'ok' }],
    ['ab', { na: 'ok', nb: 'ok', nc: no, bare: 'ok' }],
    ['beta', { na: no, nb: 'ok', nc: no, bare: 'ok' }],
    ['none', { na: 'ok', nb: 'ok', nc: 'ok', bare: 'ok' }],
    ['unbound', { na: 'ok', nb: 'ok', nc: 'ok', bare: 'ok' }],
  ] as const)('claim %s → %j', (c, want) => {
    expect(runFilter(new VolumeZone({ volumeLister: lister }), podWith(c), cacheWith(nodes))).toEqual(want);
  });
});

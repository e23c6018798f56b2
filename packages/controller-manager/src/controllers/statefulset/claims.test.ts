import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference, Pod, StatefulSet } from '@kemu/api';
import { claimOwnerRefs, claimOwnerUpToDate } from './claims.ts';

type Policy = 'Retain' | 'Delete';
const set = (whenDeleted: Policy, whenScaled: Policy) =>
  ({ metadata: { name: 'web', uid: 'set-uid' }, spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled } } }) as unknown as StatefulSet;
const pod = { metadata: { name: 'web-1', uid: 'pod-uid' } } as Pod;
const claim = (refs: OwnerReference[] = []): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'www-web-1', ownerReferences: refs } });
const owners = (refs: OwnerReference[]) => refs.map((r) => `${r.kind}/${r.uid}${r.controller ? '*' : ''}`);

describe('StatefulSet claim owners', () => {
  it.each([
    ['Retain', 'Retain', false, []],
    ['Delete', 'Retain', false, ['StatefulSet/set-uid*']],
    ['Delete', 'Retain', true, ['StatefulSet/set-uid*']],
    ['Retain', 'Delete', false, []],
    ['Retain', 'Delete', true, ['Pod/pod-uid*']],
    ['Delete', 'Delete', false, ['StatefulSet/set-uid*']],
    ['Delete', 'Delete', true, ['Pod/pod-uid*']],
  ] as const)('whenDeleted %s, whenScaled %s, scaled down %s → %j', (d, sc, down, want) => {
    const s = set(d, sc);
    const refs = claimOwnerRefs(claim(), s, pod, down);
    expect(owners(refs)).toEqual(want);
    expect(claimOwnerUpToDate(claim(refs), s, pod, down)).toBe(true);
    expect(claimOwnerUpToDate(claim(), s, pod, down)).toBe(want.length === 0);
  });

  it("another controller's claim keeps it and loses ours; a non-controller reference of ours is corrected", () => {
    const other: OwnerReference = { apiVersion: 'example.com/v1', kind: 'Thing', name: 't', uid: 'other', controller: true };
    const ours: OwnerReference = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid' };
    const s = set('Delete', 'Retain');
    expect(claimOwnerUpToDate(claim([other]), s, pod, false)).toBe(true);
    expect(claimOwnerUpToDate(claim([other, ours]), s, pod, false)).toBe(false);
    expect(owners(claimOwnerRefs(claim([other, ours]), s, pod, false))).toEqual(['Thing/other*']);
    expect(claimOwnerUpToDate(claim([ours]), s, pod, false)).toBe(false);
    expect(owners(claimOwnerRefs(claim([ours]), s, pod, false))).toEqual(['StatefulSet/set-uid*']);
  });

  it('a reference to an earlier set of the same name leaves the claim alone', () => {
    const stale: OwnerReference = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'old', controller: true };
    expect(claimOwnerUpToDate(claim([stale]), set('Retain', 'Retain'), pod, false)).toBe(true);
  });
});

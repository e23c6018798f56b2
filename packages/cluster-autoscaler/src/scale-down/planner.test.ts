import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { realClock, silentLogger } from '@kemu/base';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { PredicateChecker } from '../simulator/predicates.ts';
import { FakeProvider, fakeNode } from '../testing/fake-provider.ts';
import { ScaleDownPlanner, type PlannerInput } from './planner.ts';

const checker = new PredicateChecker(realClock, silentLogger());
const opts = { utilizationThreshold: 0.5, unneededTimeMs: 60_000, skipNodesWithSystemPods: true, skipNodesWithLocalStorage: true };
const owned = (name: string, nodeName: string, cpu: string, extra: Partial<Pod['metadata']> = {}): Pod => {
  const p = makePod(name, { requests: { cpu }, nodeName });
  p.metadata = { ...p.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-1', controller: true }], ...extra };
  return p;
};

function input(provider: FakeProvider, pods: Pod[], now: number, nodes = ['a', 'b']): PlannerInput {
  return {
    now,
    nodes: nodes.map((n) => fakeNode(n, { group: 'pool', cpu: '4' })),
    pods,
    groupOf: (n) => provider.nodeGroupForNode(n),
    targets: new Map(provider.groups.map((g) => [g.id, g.target])),
    deleting: new Set(),
  };
}

describe('ScaleDownPlanner', () => {
  it('a node under the threshold whose pods fit elsewhere becomes removable after the unneeded time', () => {
    const p = new FakeProvider([{ id: 'pool', min: 1, max: 3, target: 2 }]);
    const planner = new ScaleDownPlanner(checker, opts);
    const pods = [owned('big', 'a', '2500m'), owned('small', 'b', '500m')];
    const first = planner.update(input(p, pods, 0));
    expect([...first.unneeded.keys()]).toEqual(['b']);
    expect(first.unremovable.get('a')).toBe('NotUnderutilized');
    expect(first.removable).toEqual([]);
    const later = planner.update(input(p, pods, 60_000));
    expect(later.removable.map((r) => [r.node.metadata.name, r.pods.map((x) => x.metadata.name)])).toEqual([['b', ['small']]]);
  });

  it('never goes below the group min, and a node whose pods have nowhere to go stays', () => {
    const p = new FakeProvider([{ id: 'pool', min: 2, max: 3, target: 2 }]);
    const planner = new ScaleDownPlanner(checker, opts);
    const pods = [owned('x', 'a', '1'), owned('y', 'b', '1')];
    planner.update(input(p, pods, 0));
    expect(planner.update(input(p, pods, 120_000)).removable).toEqual([]);

    const p2 = new FakeProvider([{ id: 'pool', min: 0, max: 3, target: 2 }]);
    const tight = new ScaleDownPlanner(checker, opts);
    // Each node is at 45%: either one's pod fits on the other, but not both — only one is unneeded.
    const pods2 = [owned('x', 'a', '1800m'), owned('y', 'b', '1800m')];
    const r = tight.update(input(p2, pods2, 0));
    expect(r.unneeded.size).toBe(1);
    expect([...r.unremovable.values()]).toEqual(['NoPlaceToMovePods']);
  });

  it('pods without a controller, kube-system pods and safe-to-evict=false keep the node; DaemonSet pods do not', () => {
    const p = new FakeProvider([{ id: 'pool', min: 0, max: 3, target: 2 }]);
    const planner = new ScaleDownPlanner(checker, opts);
    const bare = makePod('bare', { requests: { cpu: '100m' }, nodeName: 'a' });
    const ds = owned('ds', 'b', '100m');
    ds.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'd-1', controller: true }];
    const r = planner.update(input(p, [bare, ds], 0));
    expect(r.unremovable.get('a')).toBe('NotReplicated');
    expect(r.unneeded.has('b')).toBe(true);
    const pinned = owned('pinned', 'a', '100m', { annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' } });
    expect(new ScaleDownPlanner(checker, opts).update(input(p, [pinned], 0)).unremovable.get('a')).toBe('NotSafeToEvictAnnotation');
    const sys = owned('sys', 'a', '100m', { namespace: 'kube-system' });
    expect(new ScaleDownPlanner(checker, opts).update(input(p, [sys], 0)).unremovable.get('a')).toBe('UnmovableKubeSystemPod');
  });

  it('a node that gets busy again loses its unneeded clock', () => {
    const p = new FakeProvider([{ id: 'pool', min: 0, max: 3, target: 2 }]);
    const planner = new ScaleDownPlanner(checker, opts);
    planner.update(input(p, [], 0));
    planner.update(input(p, [owned('busy', 'b', '3')], 30_000));
    const r = planner.update(input(p, [], 70_000));
    expect(r.unneeded.get('b')).toBe(0);
    // a stayed empty the whole time; b's clock restarted at 70 s.
    expect(r.removable.map((x) => x.node.metadata.name)).toEqual(['a']);
  });
});

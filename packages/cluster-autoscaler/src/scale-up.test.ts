import { describe, expect, it } from 'vitest';
import { realClock, silentLogger } from '@kemu/base';
import { makePod } from '@kemu/scheduler-framework/testing/wrappers';
import { planScaleUp, triggeredMessage, type GroupView } from './scale-up.ts';
import { PredicateChecker } from './simulator/predicates.ts';
import { FakeProvider, fakeNode } from './testing/fake-provider.ts';

const checker = new PredicateChecker(realClock, silentLogger());
const views = (p: FakeProvider, ready: Record<string, number> = {}): GroupView[] =>
  p.groups.map((g) => ({ group: g, target: g.target, readyCount: ready[g.id] ?? g.target }));

describe('planScaleUp', () => {
  const existing = fakeNode('pool-0', { group: 'pool', cpu: '4' });
  const busy = makePod('busy', { requests: { cpu: '2' }, nodeName: 'pool-0' });

  it('scales the group whose template fits the pod, by the nodes binpacking needs', () => {
    const p = new FakeProvider([{ id: 'pool', min: 1, max: 5, target: 1, cpu: '4' }]);
    const pending = ['a', 'b', 'c'].map((n) => makePod(n, { requests: { cpu: '3' } }));
    const plan = planScaleUp(checker, { nodes: [existing], assigned: [busy], pending, groups: views(p), expanders: ['random'] });
    expect(plan.scaleUp?.group.id).toBe('pool');
    expect([plan.scaleUp?.from, plan.scaleUp?.to]).toEqual([1, 4]);
    expect(plan.scaleUp?.pods.map((x) => x.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    expect(plan.notTriggered).toEqual([]);
    expect(triggeredMessage('pool', 1, 4, 5)).toBe('pod triggered scale-up: [{pool 1->4 (max: 5)}]');
  });

  it('never asks past the max; pods beyond it wait for the next scan', () => {
    const p = new FakeProvider([{ id: 'pool', min: 1, max: 2, target: 1, cpu: '4' }]);
    const pending = ['a', 'b'].map((n) => makePod(n, { requests: { cpu: '3' } }));
    const plan = planScaleUp(checker, { nodes: [existing], assigned: [busy], pending, groups: views(p), expanders: ['random'] });
    expect([plan.scaleUp?.from, plan.scaleUp?.to]).toEqual([1, 2]);
    expect(plan.scaleUp?.pods).toHaveLength(1);
  });

  it('a group at its max: NotTriggerScaleUp with "max node group size reached"', () => {
    const p = new FakeProvider([{ id: 'pool', min: 1, max: 1, target: 1 }]);
    const plan = planScaleUp(checker, { nodes: [existing], assigned: [busy], pending: [makePod('a', { requests: { cpu: '3' } })], groups: views(p), expanders: ['random'] });
    expect(plan.scaleUp).toBeUndefined();
    expect(plan.notTriggered.map((n) => n.message)).toEqual(["pod didn't trigger scale-up: 1 max node group size reached"]);
  });

  it("the scheduler's filter reasons name what the template lacks", () => {
    const p = new FakeProvider([
      { id: 'small', min: 0, max: 3, target: 0, cpu: '2' },
      { id: 'tainted', min: 0, max: 3, target: 0, cpu: '8', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
    ]);
    const plan = planScaleUp(checker, { nodes: [], assigned: [], pending: [makePod('a', { requests: { cpu: '3' } })], groups: views(p), expanders: ['random'] });
    expect(plan.scaleUp).toBeUndefined();
    expect(plan.notTriggered[0]?.message).toBe("pod didn't trigger scale-up: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}");
  });

  it('a pod that fits a node the cloud is still provisioning does not scale again (no double provisioning)', () => {
    const p = new FakeProvider([{ id: 'pool', min: 1, max: 5, target: 2, cpu: '4' }]);
    const plan = planScaleUp(checker, {
      nodes: [existing],
      assigned: [busy],
      pending: [makePod('a', { requests: { cpu: '3' } })],
      groups: views(p, { pool: 1 }),
      expanders: ['random'],
    });
    expect(plan.scaleUp).toBeUndefined();
    expect(plan.waiting.map((x) => x.metadata.name)).toEqual(['a']);
  });

  it('nodeSelector: only the group whose template carries the label is scaled', () => {
    const p = new FakeProvider([
      { id: 'plain', min: 0, max: 3, target: 0 },
      { id: 'ssd', min: 0, max: 3, target: 0, labels: { disk: 'ssd' } },
    ]);
    const plan = planScaleUp(checker, { nodes: [], assigned: [], pending: [makePod('a', { nodeSelector: { disk: 'ssd' } })], groups: views(p), expanders: ['random'], random: () => 0 });
    expect(plan.scaleUp?.group.id).toBe('ssd');
  });
});

import { describe, expect, it } from 'vitest';
import { numFeasibleNodesToFind, ScheduleAlgorithm } from './algorithm.ts';
import { fitErrorMessage, newDiagnosis } from './framework/fit-error.ts';
import { NodeInfo } from './framework/node-info.ts';
import { Status } from './framework/status.ts';

describe('numFeasibleNodesToFind', () => {
  const cases: [number, number, number][] = [
    // [percentageOfNodesToScore, nodes, want]
    [0, 50, 50],
    [0, 99, 99],
    [0, 100, 100],
    [0, 500, 230], // 50 - 500/125 = 46%
    [0, 1000, 420], // 42%
    [0, 5000, 500], // 10%
    [0, 6000, 300], // 50 - 48 = 2% → floor 5%
    [0, 1500, 570], // 38%
    [30, 1000, 300],
    [10, 500, 100], // min 100 nodes
    [100, 5000, 5000],
  ];
  for (const [pct, n, want] of cases) it(`${pct}% of ${n} → ${want}`, () => expect(numFeasibleNodesToFind(pct, n)).toBe(want));
});

describe('FitError message', () => {
  it('counts and sorts reasons like Kubernetes', () => {
    const d = newDiagnosis();
    d.nodeToStatus.set('a', Status.unschedulable('Insufficient cpu', 'Insufficient memory'));
    d.nodeToStatus.set('b', Status.unschedulable('Insufficient cpu'));
    d.nodeToStatus.set('c', Status.unresolvable("node(s) didn't match Pod's node affinity/selector"));
    d.nodeToStatus.set('d', Status.unresolvable('node(s) had untolerated taint {dedicated: gpu}'));
    expect(fitErrorMessage(4, d)).toBe(
      "0/4 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.",
    );
    d.postFilterMsg = 'preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.';
    expect(fitErrorMessage(4, d)).toMatch(/ preemption: 0\/4 nodes are available: 4 No preemption victims found for incoming pod\.\.$/);
    const pre = newDiagnosis();
    pre.preFilterMsg = 'waiting for something';
    pre.nodeToStatus.set('a', Status.unresolvable('waiting for something'));
    expect(fitErrorMessage(1, pre)).toBe('0/1 nodes are available: waiting for something.');
  });
});

describe('selectHost', () => {
  it('picks the highest score and breaks ties at random', () => {
    const nodes = ['a', 'b', 'c'].map((n) => new NodeInfo(undefined, n));
    const seen = new Set<string>();
    // A small deterministic LCG so the test cannot flake.
    let x = 42;
    const alg = new ScheduleAlgorithm(0, undefined, () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31));
    expect(alg.selectHost(nodes, [10, 90, 30])).toBe('b');
    for (let i = 0; i < 60; i++) seen.add(alg.selectHost(nodes, [50, 50, 50]));
    expect([...seen].sort()).toEqual(['a', 'b', 'c']);
  });
});

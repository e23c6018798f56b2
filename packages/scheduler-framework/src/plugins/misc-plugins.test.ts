import { describe, expect, it } from 'vitest';
import { cacheWith, makeNode, makePod } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import { ImageLocality } from './image-locality.ts';
import { ErrReasonNodePorts, NodePorts } from './node-ports.ts';
import { ErrReasonNodeName, NodeName } from './node-name.ts';
import { ErrReasonUnschedulable, NodeUnschedulable } from './node-unschedulable.ts';
import { PrioritySort } from './priority-sort.ts';
import { pi } from '../testing/wrappers.ts';

describe('NodePorts', () => {
  const cases = [
    { name: 'free', used: [], want: [8080], ok: true },
    { name: 'conflict', used: [8080], want: [8080], ok: false },
    { name: 'different port', used: [8081], want: [8080], ok: true },
  ];
  for (const c of cases)
    it(c.name, () => {
      const cache = cacheWith([makeNode('n1')], c.used.length ? [makePod('x', { nodeName: 'n1', hostPorts: c.used })] : []);
      const r = runFilter(new NodePorts(), makePod('p', { hostPorts: c.want }), cache).n1;
      expect(r).toEqual(c.ok ? 'ok' : { code: 'Unschedulable', reasons: ErrReasonNodePorts });
    });
});

describe('NodeUnschedulable / NodeName', () => {
  it('rejects cordoned nodes unless tolerated', () => {
    const cache = cacheWith([makeNode('n1', { unschedulable: true })]);
    expect(runFilter(new NodeUnschedulable(), makePod('p'), cache).n1).toEqual({ code: 'UnschedulableAndUnresolvable', reasons: ErrReasonUnschedulable });
    const tol = makePod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });
    expect(runFilter(new NodeUnschedulable(), tol, cache).n1).toBe('ok');
  });
  it('NodeName', () => {
    const cache = cacheWith([makeNode('n1'), makeNode('n2')]);
    const r = runFilter(new NodeName(), makePod('p', { nodeName: 'n2' }), cache);
    expect(r).toEqual({ n1: { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonNodeName }, n2: 'ok' });
  });
});

describe('ImageLocality', () => {
  it('prefers nodes holding large images', () => {
    const mb = 1024 * 1024;
    const cache = cacheWith([
      makeNode('big', { images: [{ names: ['docker.io/library/app:1'], sizeBytes: 500 * mb }] }),
      makeNode('none'),
    ]);
    const s = runScore(new ImageLocality({ snapshot: () => cache }), makePod('p', { image: 'docker.io/library/app:1' }), cache);
    // 500Mi × spread 1/2 = 250Mi → (250-23)/(1000-23) × 100 = 23
    expect(s).toEqual({ big: 23, none: 0 });
  });
});

describe('PrioritySort', () => {
  it('orders by priority then timestamp', () => {
    const q = (prio: number, ts: number) => ({ podInfo: pi(makePod(`p${prio}-${ts}`, { priority: prio })), timestamp: ts, initialAttemptTimestamp: ts, attempts: 0, unschedulablePlugins: new Set<string>() });
    const s = new PrioritySort();
    expect(s.less(q(10, 5), q(1, 1))).toBe(true);
    expect(s.less(q(1, 1), q(1, 2))).toBe(true);
    expect(s.less(q(1, 2), q(1, 1))).toBe(false);
  });
});

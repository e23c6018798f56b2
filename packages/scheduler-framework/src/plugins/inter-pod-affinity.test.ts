import { describe, expect, it } from 'vitest';
import type { PodAffinityTerm } from '@kemu/api';
import { cacheWith, makeNode, makePod, testHandleDeps } from '../testing/wrappers.ts';
import { runFilter, runScore } from '../testing/run-plugin.ts';
import {
  ErrReasonAffinityRulesNotMatch,
  ErrReasonAntiAffinityRulesNotMatch,
  ErrReasonExistingAntiAffinityRulesNotMatch,
  InterPodAffinity,
} from './inter-pod-affinity.ts';

const nodes = () => [makeNode('a1', { labels: { zone: 'a' } }), makeNode('a2', { labels: { zone: 'a' } }), makeNode('b1', { labels: { zone: 'b' } })];
const term = (labels: Record<string, string>, topologyKey = 'zone'): PodAffinityTerm => ({ labelSelector: { matchLabels: labels }, topologyKey });
const anti = (t: PodAffinityTerm) => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } });
const aff = (t: PodAffinityTerm) => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } });

describe('InterPodAffinity filter', () => {
  it('required anti-affinity avoids the zone with a matching pod', () => {
    const cache = cacheWith(nodes(), [makePod('x', { nodeName: 'a1', labels: { app: 'web' } })]);
    const pod = makePod('p', { labels: { app: 'web' }, affinity: anti(term({ app: 'web' })) });
    const r = runFilter(new InterPodAffinity(testHandleDeps(cache)), pod, cache);
    const no = { code: 'Unschedulable', reasons: ErrReasonAntiAffinityRulesNotMatch };
    expect(r).toEqual({ a1: no, a2: no, b1: 'ok' });
  });
  it("existing pods' anti-affinity is honoured", () => {
    const cache = cacheWith(nodes(), [makePod('x', { nodeName: 'b1', labels: { app: 'db' }, affinity: anti(term({ app: 'web' }, 'kubernetes.io/hostname')) })]);
    const r = runFilter(new InterPodAffinity(testHandleDeps(cache)), makePod('p', { labels: { app: 'web' } }), cache);
    expect(r).toEqual({ a1: 'ok', a2: 'ok', b1: { code: 'Unschedulable', reasons: ErrReasonExistingAntiAffinityRulesNotMatch } });
  });
  it('required affinity goes where the matching pods are', () => {
    const cache = cacheWith(nodes(), [makePod('x', { nodeName: 'b1', labels: { app: 'db' } })]);
    const pod = makePod('p', { labels: { app: 'web' }, affinity: aff(term({ app: 'db' })) });
    const no = { code: 'UnschedulableAndUnresolvable', reasons: ErrReasonAffinityRulesNotMatch };
    expect(runFilter(new InterPodAffinity(testHandleDeps(cache)), pod, cache)).toEqual({ a1: no, a2: no, b1: 'ok' });
  });
  it('the first pod of a self-affine group may go anywhere', () => {
    const cache = cacheWith(nodes());
    const pod = makePod('p', { labels: { app: 'web' }, affinity: aff(term({ app: 'web' })) });
    expect(runFilter(new InterPodAffinity(testHandleDeps(cache)), pod, cache)).toEqual({ a1: 'ok', a2: 'ok', b1: 'ok' });
  });
  it('other namespaces do not match by default', () => {
    const cache = cacheWith(nodes(), [makePod('x', { namespace: 'other', nodeName: 'a1', labels: { app: 'web' } })]);
    const pod = makePod('p', { labels: { app: 'web' }, affinity: anti(term({ app: 'web' })) });
    expect(runFilter(new InterPodAffinity(testHandleDeps(cache)), pod, cache).a1).toBe('ok');
  });
});

describe('InterPodAffinity score', () => {
  it('preferred affinity and anti-affinity', () => {
    const cache = cacheWith(nodes(), [makePod('x', { nodeName: 'a1', labels: { app: 'db' } })]);
    const pref = makePod('p', {
      affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ app: 'db' }) }] } },
    });
    expect(runScore(new InterPodAffinity(testHandleDeps(cache)), pref, cache)).toEqual({ a1: 100, a2: 100, b1: 0 });
    const avoid = makePod('p', {
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ app: 'db' }) }] } },
    });
    expect(runScore(new InterPodAffinity(testHandleDeps(cache)), avoid, cache)).toEqual({ a1: 0, a2: 0, b1: 100 });
    expect(runScore(new InterPodAffinity(testHandleDeps(cache)), makePod('q'), cache)).toBe('skip');
  });
});

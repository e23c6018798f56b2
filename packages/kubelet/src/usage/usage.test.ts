// Emulated usage: the defaults as fractions of requests, and the annotation forms (constant, step, sine) with
// their exact cumulative CPU; a value that does not parse falls back to the default.
import { describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { containerUsage, integralTo, parseProfile, rateAt } from './usage.ts';

function pod(annotations: Record<string, string> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', annotations }, spec: { containers: [] } };
}
const web = { name: 'web', resources: { requests: { cpu: '200m', memory: '64Mi' } } };

describe('emulated container usage', () => {
  it('defaults to 10% of the CPU request and 50% of the memory request', () => {
    const u = containerUsage(pod(), web, 0, 10_000);
    expect(u.usageNanoCores).toBe(20_000_000);
    expect(u.usageCoreNanoSeconds).toBe(200_000_000);
    expect(u.workingSetBytes).toBe(32 * 1024 * 1024);
    const bare = containerUsage(pod(), { name: 'x' }, 0, 1000);
    expect([bare.usageNanoCores, bare.workingSetBytes]).toEqual([1_000_000, 8 * 1024 * 1024]);
  });

  it('takes a constant from the pod annotation, a per-container one first', () => {
    expect(containerUsage(pod({ 'kemu.dev/cpu-usage': '250m' }), web, 0, 4000)).toMatchObject({ usageNanoCores: 250_000_000, usageCoreNanoSeconds: 1_000_000_000 });
    expect(containerUsage(pod({ 'kemu.dev/cpu-usage': '250m', 'kemu.dev/cpu-usage.web': '1' }), web, 0, 1000).usageNanoCores).toBe(1e9);
    expect(containerUsage(pod({ 'kemu.dev/memory-usage': '100Mi' }), web, 0, 1000).workingSetBytes).toBe(100 * 1024 * 1024);
    expect(containerUsage(pod({ 'kemu.dev/cpu-usage': 'lots' }), web, 0, 1000).usageNanoCores).toBe(20_000_000);
  });

  it('steps and sines, with their integrals', () => {
    const step = parseProfile('step:100m,500m@1m,200m@2m');
    expect(step).toBeDefined();
    if (!step) return;
    expect([rateAt(step, 0), rateAt(step, 59), rateAt(step, 60), rateAt(step, 150)]).toEqual([0.1, 0.1, 0.5, 0.2]);
    expect(integralTo(step, 130)).toBeCloseTo(6 + 30 + 2);
    const sine = parseProfile('sine:500m,250m,40s');
    expect(sine).toBeDefined();
    if (!sine) return;
    expect(rateAt(sine, 10)).toBeCloseTo(0.75);
    expect(integralTo(sine, 40)).toBeCloseTo(20);
    expect(integralTo(sine, 20)).toBeCloseTo(10 + (0.25 * 40) / Math.PI);
    for (const bad of ['step:1,2', 'step:1,2@2s,3@1s', 'sine:1,2,10s', 'sine:1,0.5', '-1', 'sine:1,0.5,0s']) expect(parseProfile(bad), bad).toBeUndefined();
  });
});

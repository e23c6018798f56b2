import { describe, expect, it } from 'vitest';
import { formatLeaseFence, parseLeaseFence } from './lease-fence.ts';

describe('X-Kemu-Lease', () => {
  it('round-trips a token', () => {
    const t = { namespace: 'kube-system', name: 'kube-scheduler', holder: 'scheduler-0_6f1c2a9e-0b6e-4c1e-9a57-3f1d2c4b5a69', transitions: 4 };
    expect(formatLeaseFence(t)).toBe('kube-system/kube-scheduler;holder=scheduler-0_6f1c2a9e-0b6e-4c1e-9a57-3f1d2c4b5a69;transitions=4');
    expect(parseLeaseFence(formatLeaseFence(t))).toEqual(t);
  });

  it.each([
    [''],
    ['kube-system/kube-scheduler'],
    ['kube-system/kube-scheduler;holder=a'],
    ['kube-system/kube-scheduler;transitions=1;holder=a'],
    ['kube-system/kube-scheduler;holder=;transitions=1'],
    ['kube-system/kube-scheduler;holder=a b;transitions=1'],
    ['kube-system/kube-scheduler;holder=a;transitions=01'],
    ['kube-system/kube-scheduler;holder=a;transitions=-1'],
    ['kube-system/kube-scheduler;holder=a;transitions=99999999999'],
    ['Kube-System/kube-scheduler;holder=a;transitions=1'],
    ['kube-scheduler;holder=a;transitions=1'],
  ])('refuses %j', (v) => {
    expect(parseLeaseFence(v)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { parseFlags } from '@kemu/base';
import { leaderElectionFlags, leaseOptionsFromFlags } from './flags.ts';

describe('leaseOptionsFromFlags', () => {
  const flags = leaderElectionFlags('kube-scheduler');

  it("gives Kubernetes' defaults: the component's Lease in kube-system, 15s/10s/2s", () => {
    expect(leaseOptionsFromFlags(parseFlags(flags, []))).toEqual({
      namespace: 'kube-system',
      name: 'kube-scheduler',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
  });

  it('takes every given --leader-elect-* flag, durations in ms', () => {
    const argv = [
      '--leader-elect-resource-namespace=ops',
      '--leader-elect-resource-name=my-lease',
      '--leader-elect-lease-duration=4s',
      '--leader-elect-renew-deadline=3s',
      '--leader-elect-retry-period=500ms',
    ];
    expect(leaseOptionsFromFlags(parseFlags(flags, argv))).toEqual({
      namespace: 'ops',
      name: 'my-lease',
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 500,
    });
  });
});

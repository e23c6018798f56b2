// The --leader-elect* flags that kube-controller-manager and kube-scheduler share (component-base's
// LeaderElectionConfiguration flags): Kubernetes' names, usage strings and defaults, durations in ms.
// Only the Lease name differs between the components, so it is the one parameter.
import type { LeaseOptions } from './run.ts';

/** Flag specs for `parseFlags`/`parseCommandLine`; spread them into a component's flag table. */
export function leaderElectionFlags(defaultResourceName: string) {
  return {
    'leader-elect': {
      type: 'bool',
      default: true,
      usage: 'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.',
    },
    'leader-elect-lease-duration': {
      type: 'duration',
      default: 15_000,
      usage: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.',
    },
    'leader-elect-renew-deadline': {
      type: 'duration',
      default: 10_000,
      usage: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.',
    },
    'leader-elect-retry-period': {
      type: 'duration',
      default: 2_000,
      usage: 'The duration the clients should wait between attempting acquisition and renewal of a leadership.',
    },
    'leader-elect-resource-lock': {
      type: 'string',
      default: 'leases',
      usage: "The type of resource object that is used for locking during leader election. Supported options are 'leases'.",
    },
    'leader-elect-resource-name': { type: 'string', default: defaultResourceName, usage: 'The name of resource object that is used for locking during leader election.' },
    'leader-elect-resource-namespace': { type: 'string', default: 'kube-system', usage: 'The namespace of resource object that is used for locking during leader election.' },
  } as const;
}

/** The parsed values of the leaderElectionFlags that name the Lease and time the elector. */
export interface LeaseFlagValues {
  'leader-elect-resource-namespace': string;
  'leader-elect-resource-name': string;
  'leader-elect-lease-duration': number;
  'leader-elect-renew-deadline': number;
  'leader-elect-retry-period': number;
}

/** The `lease` of leaderElectedRun from a component's parsed --leader-elect-* flags. */
export function leaseOptionsFromFlags(flags: LeaseFlagValues): LeaseOptions {
  return {
    namespace: flags['leader-elect-resource-namespace'],
    name: flags['leader-elect-resource-name'],
    leaseDurationMs: flags['leader-elect-lease-duration'],
    renewDeadlineMs: flags['leader-elect-renew-deadline'],
    retryPeriodMs: flags['leader-elect-retry-period'],
  };
}

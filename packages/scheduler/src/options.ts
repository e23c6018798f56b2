// kube-scheduler's flags (Kubernetes' names and defaults; durations in milliseconds). Flags given on the
// command line override the matching fields of the --config file.
import { LOGGING_FORMAT_FLAG, type FlagValues } from '@kemu/base';
import { leaderElectionFlags, servingFlags } from '@kemu/client';
import type { KubeSchedulerConfiguration } from '@kemu/scheduler-framework';

export const FLAGS = {
  config: { type: 'string', default: '', usage: 'The path to the configuration file.' },
  master: { type: 'string', default: '', usage: 'The address of the Kubernetes API server (overrides any value in kubeconfig)' },
  kubeconfig: { type: 'string', default: '', usage: 'DEPRECATED: path to kubeconfig file with authorization and master location information.' },
  'kube-api-qps': { type: 'float', default: 50, usage: 'DEPRECATED: QPS to use while talking with kubernetes apiserver.' },
  'kube-api-burst': { type: 'int', default: 100, usage: 'DEPRECATED: burst to use while talking with kubernetes apiserver.' },
  ...leaderElectionFlags('kube-scheduler'),
  // The secure port's serving, authentication and authorization flags (kube-scheduler tolerates a failed lookup).
  ...servingFlags({ port: 10259, tolerateLookupFailure: true }),
  'hostname-override': { type: 'string', default: '', usage: 'If non-empty, will use this string as identification instead of the actual hostname.' },
  'pod-max-in-unschedulable-pods-duration': {
    type: 'duration',
    default: 300_000,
    usage: 'DEPRECATED: the maximum time a pod can stay in unschedulablePods.',
  },
  v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
  ...LOGGING_FORMAT_FLAG,
} as const;

export type SchedulerFlags = Omit<FlagValues<typeof FLAGS>, '_'>;

/** Was --name given on the command line (so it overrides the config file)? */
export function flagGiven(argv: readonly string[], name: string): boolean {
  return argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}` || a.startsWith(`-${name}=`));
}

/** Applies explicitly given flags on top of the configuration (or all flags when there is no --config). */
export function applyFlags(cfg: KubeSchedulerConfiguration, flags: SchedulerFlags, argv: readonly string[]): void {
  const given = (n: string) => !flags.config || flagGiven(argv, n);
  const le = cfg.leaderElection;
  if (given('leader-elect')) le.leaderElect = flags['leader-elect'];
  if (given('leader-elect-lease-duration')) le.leaseDurationMs = flags['leader-elect-lease-duration'];
  if (given('leader-elect-renew-deadline')) le.renewDeadlineMs = flags['leader-elect-renew-deadline'];
  if (given('leader-elect-retry-period')) le.retryPeriodMs = flags['leader-elect-retry-period'];
  if (given('leader-elect-resource-lock')) le.resourceLock = flags['leader-elect-resource-lock'];
  if (given('leader-elect-resource-name')) le.resourceName = flags['leader-elect-resource-name'];
  if (given('leader-elect-resource-namespace')) le.resourceNamespace = flags['leader-elect-resource-namespace'];
  if (flags.kubeconfig) cfg.clientConnection.kubeconfig = flags.kubeconfig;
  if (given('kube-api-qps')) cfg.clientConnection.qps = flags['kube-api-qps'];
  if (given('kube-api-burst')) cfg.clientConnection.burst = flags['kube-api-burst'];
}

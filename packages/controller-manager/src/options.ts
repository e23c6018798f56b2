// kube-controller-manager's flags: Kubernetes' names and 1.31 defaults (durations in milliseconds).
import { FEATURE_GATES_FLAG, LOGGING_FORMAT_FLAG, loggingFormatError, parseFlags, type FlagValues } from '@kemu/base';
import { leaderElectionFlags, servingFlags } from '@kemu/client';
import { CSR_SIGNING_FLAGS, validateCsrSigningOptions } from './controllers/certificates/options.ts';
import { IDENTITY_FLAGS } from './identity-options.ts';
import { BATCH_FLAGS } from './controllers/batch-options.ts';
import { POLICY_FLAGS } from './policy-options.ts';
import { APPS_SETS_FLAGS } from './apps-options.ts';
import { HPA_FLAGS } from './controllers/podautoscaler/options.ts';

export const FLAGS = {
  master: { type: 'string', default: '', usage: 'The address of the Kubernetes API server (overrides any value in kubeconfig).' },
  kubeconfig: { type: 'string', default: '', usage: 'Path to kubeconfig file with authorization and master location information.' },
  'kube-api-qps': { type: 'float', default: 20, usage: 'QPS to use while talking with kubernetes apiserver.' },
  'kube-api-burst': { type: 'int', default: 30, usage: 'Burst to use while talking with kubernetes apiserver.' },
  ...leaderElectionFlags('kube-controller-manager'),
  // kemu-only: Kubernetes' kube-controller-manager never releases its Lease (ReleaseOnCancel is set for
  // kube-scheduler only), so on SIGTERM a follower waits for the lease to expire. This opts in to the release.
  'leader-elect-release-on-cancel': {
    type: 'bool',
    default: false,
    usage: 'kemu only: release the leader Lease on SIGTERM so a follower takes over at once, instead of after the lease duration.',
  },
  'use-service-account-credentials': { type: 'bool', default: false, usage: 'If true, use individual service account credentials for each controller.' },
  controllers: {
    type: 'stringArray',
    default: ['*'],
    usage: "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.",
  },
  'cluster-cidr': { type: 'string', default: '10.200.0.0/16', usage: 'CIDR Range for Pods in cluster. Requires --allocate-node-cidrs to be true' },
  'allocate-node-cidrs': { type: 'bool', default: false, usage: 'Should CIDRs for Pods be allocated and set on the cloud provider.' },
  // 0 = unset, as Kubernetes: the per-family flags (or their defaults) apply, and dual-stack refuses this one.
  'node-cidr-mask-size': { type: 'int', default: 0, usage: 'Mask size for node cidr in cluster. Default is 24 for IPv4 and 64 for IPv6.' },
  'node-cidr-mask-size-ipv4': { type: 'int', default: 0, usage: 'Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.' },
  'node-cidr-mask-size-ipv6': { type: 'int', default: 0, usage: 'Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.' },
  'service-cluster-ip-range': { type: 'string', default: '', usage: 'CIDR Range for Services in cluster.' },
  'node-monitor-period': { type: 'duration', default: 5_000, usage: 'The period for syncing NodeStatus in cloud-node-lifecycle-controller.' },
  // The architecture contract fixes 50s (Kubernetes' default since 1.32, kubernetes/kubernetes#126287; 1.31 had 40s).
  'node-monitor-grace-period': {
    type: 'duration',
    default: 50_000,
    usage: 'Amount of time which we allow running Node to be unresponsive before marking it unhealthy.',
  },
  'node-startup-grace-period': { type: 'duration', default: 60_000, usage: 'Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.' },
  'node-eviction-rate': { type: 'float', default: 0.1, usage: 'Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy.' },
  'secondary-node-eviction-rate': { type: 'float', default: 0.01, usage: 'Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy.' },
  'large-cluster-size-threshold': { type: 'int', default: 50, usage: 'Number of nodes from which node-lifecycle-controller treats the cluster as large for the eviction logic purposes.' },
  'unhealthy-zone-threshold': { type: 'float', default: 0.55, usage: 'Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy.' },
  'terminated-pod-gc-threshold': {
    type: 'int',
    default: 12500,
    usage: 'Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled.',
  },
  // The secure port's serving, authentication and authorization flags (kube-controller-manager's defaults).
  ...servingFlags({ port: 10257, tolerateLookupFailure: false }),
  'hostname-override': { type: 'string', default: '', usage: 'If non-empty, will use this string as identification instead of the actual hostname.' },
  'concurrent-deployment-syncs': { type: 'int', default: 5, usage: 'The number of deployment objects that are allowed to sync concurrently.' },
  'concurrent-replicaset-syncs': { type: 'int', default: 5, usage: 'The number of replica sets that are allowed to sync concurrently.' },
  'concurrent-gc-syncs': { type: 'int', default: 20, usage: 'The number of garbage collector workers that are allowed to sync concurrently.' },
  'enable-garbage-collector': { type: 'bool', default: true, usage: 'Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-apiserver.' },
  'concurrent-namespace-syncs': { type: 'int', default: 10, usage: 'The number of namespace objects that are allowed to sync concurrently.' },
  'namespace-sync-period': { type: 'duration', default: 300_000, usage: 'The period for syncing namespace life-cycle updates' },
  'concurrent-serviceaccount-token-syncs': { type: 'int', default: 5, usage: 'The number of service account token objects that are allowed to sync concurrently.' },
  'concurrent-endpoint-syncs': { type: 'int', default: 5, usage: 'The number of endpoint syncing operations that will be done concurrently.' },
  'concurrent-service-endpoint-syncs': { type: 'int', default: 5, usage: 'The number of service endpoint syncing operations that will be done concurrently.' },
  'concurrent-service-syncs': { type: 'int', default: 1, usage: 'The number of services that are allowed to sync concurrently.' },
  'min-resync-period': { type: 'duration', default: 43_200_000, usage: 'The resync period in reflectors will be random between MinResyncPeriod and 2*MinResyncPeriod.' },
  ...CSR_SIGNING_FLAGS,
  v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
  ...LOGGING_FORMAT_FLAG,
  ...IDENTITY_FLAGS,
  ...BATCH_FLAGS,
  ...POLICY_FLAGS,
  ...APPS_SETS_FLAGS,
  ...HPA_FLAGS,
  ...FEATURE_GATES_FLAG,
} as const;

export type ControllerManagerOptions = Omit<FlagValues<typeof FLAGS>, '_'>;

/** Parses argv (throws FlagError on unknown/bad flags; main turns that into usage + exit 2). */
export function parseOptions(argv: string[]): ControllerManagerOptions {
  const { _: _rest, ...values } = parseFlags(FLAGS, argv);
  return values;
}

/** Checks that need more than one flag; returns Kubernetes-style messages. */
export function validateOptions(o: ControllerManagerOptions): string[] {
  const errs: string[] = [];
  if (!o.master && !o.kubeconfig) errs.push('--master or --kubeconfig must be set');
  errs.push(...validateCsrSigningOptions(o));
  const formatError = loggingFormatError(o['logging-format']);
  if (formatError) errs.push(formatError);
  if (o['leader-elect-resource-lock'] !== 'leases') errs.push(`resourceLock value must be "leases"`);
  if (o['secure-port'] < 0 || o['secure-port'] > 65535) errs.push(`--secure-port ${o['secure-port']} must be between 0 and 65535, inclusive. 0 for turning off secure port`);
  if (o['leader-elect']) {
    const lease = o['leader-elect-lease-duration'];
    const renew = o['leader-elect-renew-deadline'];
    const retry = o['leader-elect-retry-period'];
    if (lease <= renew) errs.push('leaseDuration must be greater than renewDeadline');
    if (renew <= 1.2 * retry) errs.push('renewDeadline must be greater than retryPeriod*JitterFactor');
  }
  return errs;
}

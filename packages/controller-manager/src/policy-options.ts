// The flags of the replicationcontroller and resourcequota controllers: Kubernetes' names, defaults and help,
// spread into FLAGS (durations in milliseconds).
export const POLICY_FLAGS = {
  'concurrent-rc-syncs': {
    type: 'int',
    default: 5,
    usage: 'The number of replication controllers that are allowed to sync concurrently. Larger number = more responsive replica management, but more CPU (and network) load',
  },
  'concurrent-resource-quota-syncs': {
    type: 'int',
    default: 5,
    usage: 'The number of resource quotas that are allowed to sync concurrently. Larger number = more responsive quota management, but more CPU (and network) load',
  },
  'resource-quota-sync-period': { type: 'duration', default: 300_000, usage: 'The period for syncing quota usage status in the system' },
} as const;

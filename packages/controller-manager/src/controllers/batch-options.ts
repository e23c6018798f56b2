// The job, cronjob and ttl-after-finished controllers' flags (Kubernetes' names, defaults and usage).
export const BATCH_FLAGS = {
  'concurrent-job-syncs': {
    type: 'int',
    default: 5,
    usage: 'The number of job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load',
  },
  'concurrent-cronjob-syncs': {
    type: 'int',
    default: 5,
    usage: 'The number of cron job objects that are allowed to sync concurrently. Larger number = more responsive jobs, but more CPU (and network) load',
  },
  'concurrent-ttl-after-finished-syncs': { type: 'int', default: 5, usage: 'The number of ttl-after-finished-controller workers that are allowed to sync concurrently.' },
} as const;

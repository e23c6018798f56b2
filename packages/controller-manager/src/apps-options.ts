// The daemonset and statefulset controllers' flags (Kubernetes' names and defaults), spread into FLAGS.
export const APPS_SETS_FLAGS = {
  'concurrent-daemonset-syncs': { type: 'int', default: 2, usage: 'The number of daemonset objects that are allowed to sync concurrently.' },
  'concurrent-statefulset-syncs': { type: 'int', default: 5, usage: 'The number of statefulset objects that are allowed to sync concurrently.' },
} as const;

// The horizontal-pod-autoscaler-controller's flags: Kubernetes' names, defaults and help, spread into FLAGS
// (durations in milliseconds).
export const HPA_FLAGS = {
  'horizontal-pod-autoscaler-sync-period': {
    type: 'duration',
    default: 15_000,
    usage: 'The period for syncing the number of pods in horizontal pod autoscaler.',
  },
  'horizontal-pod-autoscaler-downscale-stabilization': {
    type: 'duration',
    default: 300_000,
    usage: 'The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period.',
  },
  'horizontal-pod-autoscaler-tolerance': {
    type: 'float',
    default: 0.1,
    usage: 'The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling.',
  },
  'horizontal-pod-autoscaler-cpu-initialization-period': {
    type: 'duration',
    default: 300_000,
    usage: 'The period after pod start when CPU samples might be skipped.',
  },
  'horizontal-pod-autoscaler-initial-readiness-delay': {
    type: 'duration',
    default: 30_000,
    usage: 'The period after pod start during which readiness changes will be treated as initial readiness.',
  },
  'concurrent-horizontal-pod-autoscaler-syncs': {
    type: 'int',
    default: 5,
    usage: 'The number of horizontal pod autoscaler objects that are allowed to sync concurrently. Larger number = more responsive horizontal pod autoscaler objects processing, but more CPU (and network) load.',
  },
} as const;

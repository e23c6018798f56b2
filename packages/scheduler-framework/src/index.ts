// @kemu/scheduler-framework: the scheduling framework as a library — extension points, the in-tree plugins,
// the scheduler cache (a Snapshot), one scheduling cycle (ScheduleAlgorithm) and KubeSchedulerConfiguration.
// kube-scheduler runs it against the live cluster; the cluster-autoscaler runs the same Filter plugins against
// node-group templates, so both decide "does this pod fit" with one code path.
export { ScheduleAlgorithm, numFeasibleNodesToFind } from './algorithm.ts';
export { SchedulerCache, podKey } from './cache/cache.ts';
export { parseConfigurationText, decodeConfiguration, validateConfiguration, ConfigError } from './config/load.ts';
export { defaultConfiguration, defaultProfile } from './config/defaults.ts';
export type * from './config/types.ts';
export * from './framework/interface.ts';
export { Status, Code, type MaybeStatus } from './framework/status.ts';
export { CycleState } from './framework/cycle-state.ts';
export { NodeInfo } from './framework/node-info.ts';
export { PodInfo, type NamespaceLabels } from './framework/pod-info.ts';
export { Registry } from './framework/registry.ts';
export { Framework, FrameworkError, type PreEnqueuePlugin, type HandleDeps } from './framework/runtime.ts';
export { FitError, fitErrorMessage, NO_NODES_AVAILABLE } from './framework/fit-error.ts';
export { inTreeRegistry } from './plugins/registry.ts';
export { Names } from './plugins/names.ts';
export { compileLabelSelector, compileSet } from './util/selector.ts';
export { PrioritySort } from './plugins/priority-sort.ts';
export { SchedulingGates } from './plugins/scheduling-gates.ts';

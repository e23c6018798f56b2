// @kemu/scheduler: kube-scheduler. Guarantees: a pod is bound at most once by this scheduler (assumed in the
// cache before its bind, forgotten on failure, never retried blindly on 409); decisions, reasons and event
// messages follow Kubernetes' scheduling framework and its in-tree plugins.
export { Scheduler, type SchedulerOptions } from './scheduler.ts';
export { ScheduleAlgorithm, numFeasibleNodesToFind } from './algorithm.ts';
export { SchedulerCache } from './cache/cache.ts';
export { SchedulingQueue } from './queue/scheduling-queue.ts';
export { parseConfigurationText, decodeConfiguration, ConfigError } from './config/load.ts';
export { defaultConfiguration } from './config/defaults.ts';
export type * from './config/types.ts';
export * from './framework/interface.ts';
export { Status, Code } from './framework/status.ts';
export { CycleState } from './framework/cycle-state.ts';
export { NodeInfo } from './framework/node-info.ts';
export { PodInfo } from './framework/pod-info.ts';
export { Registry } from './framework/registry.ts';
export { Framework } from './framework/runtime.ts';
export { FitError, fitErrorMessage } from './framework/fit-error.ts';
export { inTreeRegistry } from './plugins/registry.ts';
export { Names } from './plugins/names.ts';

// @kemu/scheduler: kube-scheduler. Guarantees: a pod is bound at most once by this scheduler (assumed in the
// cache before its bind, forgotten on failure, never retried blindly on 409); decisions, reasons and event
// messages follow Kubernetes' scheduling framework and its in-tree plugins (@kemu/scheduler-framework).
export { Scheduler, type SchedulerOptions } from './scheduler.ts';
export { SchedulingQueue } from './queue/scheduling-queue.ts';

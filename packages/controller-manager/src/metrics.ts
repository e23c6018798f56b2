// Controller metrics with Kubernetes' workqueue names (workqueue_depth, workqueue_adds_total,
// workqueue_retries_total, workqueue_work_duration_seconds), labelled by queue name. One registry for the
// process; main serves it on /metrics next to the default process metrics.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const controllerRegistry = new Registry();

export const workqueueMetrics = {
  depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers: [controllerRegistry] }),
  adds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers: [controllerRegistry] }),
  retries: new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers: [controllerRegistry] }),
  workDuration: new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes.',
    labelNames: ['name'],
    buckets: [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10],
    registers: [controllerRegistry],
  }),
};

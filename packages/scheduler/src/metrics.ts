// The scheduler's Prometheus metrics, named as Kubernetes names them.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  attempts: Counter<'result' | 'profile'>;
  attemptDuration: Histogram<'result' | 'profile'>;
  sliDuration: Histogram<'attempts'>;
  pending: Gauge<'queue'>;
}

export function newSchedulerMetrics(registry: Registry, pending: () => Record<string, number>): SchedulerMetrics {
  const buckets = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];
  return {
    attempts: new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. unschedulable means a pod could not be scheduled, while error means an internal scheduler problem.',
      labelNames: ['result', 'profile'],
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
      labelNames: ['result', 'profile'],
      buckets,
      registers: [registry],
    }),
    sliDuration: new Histogram({
      name: 'scheduler_pod_scheduling_sli_duration_seconds',
      help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
      labelNames: ['attempts'],
      buckets,
      registers: [registry],
    }),
    pending: new Gauge({
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
      labelNames: ['queue'],
      registers: [registry],
      collect() {
        for (const [q, n] of Object.entries(pending())) this.set({ queue: q }, n);
      },
    }),
  };
}

// Prometheus metrics with Kubernetes' names: request counts and latencies by verb/resource/code,
// registered watchers and those closed for unresponsiveness, inflight requests, store latency.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'verb' | 'resource' | 'code'>;
  duration: Histogram<'verb' | 'resource'>;
  watchers: Gauge<'resource'>;
  inflight: Gauge<'request_kind'>;
  storeLatency: Histogram<'operation'>;
  watchEvents: Counter<'resource'>;
  terminatedWatchers: Counter<'group' | 'resource'>;
}

export function createMetrics(defaults = false): Metrics {
  const registry = new Registry();
  if (defaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({ name: 'apiserver_request_total', help: 'Counter of apiserver requests broken out by verb, resource and HTTP response code.', labelNames: ['verb', 'resource', 'code'], registers: [registry] }),
    duration: new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb and resource.',
      labelNames: ['verb', 'resource'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    watchers: new Gauge({ name: 'apiserver_registered_watchers', help: 'Number of currently registered watchers for a given resource.', labelNames: ['resource'], registers: [registry] }),
    inflight: new Gauge({ name: 'apiserver_current_inflight_requests', help: 'Maximal number of currently used inflight request limit of this apiserver per request kind.', labelNames: ['request_kind'], registers: [registry] }),
    storeLatency: new Histogram({
      name: 'etcd_request_duration_seconds',
      help: 'Store request latency in seconds for each operation.',
      labelNames: ['operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [registry],
    }),
    watchEvents: new Counter({ name: 'apiserver_watch_events_total', help: 'Number of events sent in watch clients.', labelNames: ['resource'], registers: [registry] }),
    terminatedWatchers: new Counter({ name: 'apiserver_terminated_watchers_total', help: 'Counter of watchers closed due to unresponsiveness broken by resource type.', labelNames: ['group', 'resource'], registers: [registry] }),
  };
}

// Wraps a Backend so every call is timed into etcd_request_duration_seconds{operation} (Kubernetes'
// name for store latency), without changing its behaviour.
import type { Backend } from '@kemu/store';
import type { Metrics } from './metrics.ts';

const TIMED = ['get', 'list', 'count', 'create', 'update', 'delete', 'currentRevision', 'compactRevision', 'compact', 'healthy'] as const;

export function instrumentBackend(backend: Backend, metrics: Metrics): Backend {
  const out = Object.create(backend) as Backend;
  for (const op of TIMED) {
    const orig = backend[op].bind(backend) as (...a: unknown[]) => Promise<unknown>;
    (out as unknown as Record<string, unknown>)[op] = async (...args: unknown[]) => {
      const end = metrics.storeLatency.startTimer({ operation: op });
      try {
        return await orig(...args);
      } finally {
        end();
      }
    };
  }
  out.watch = backend.watch.bind(backend);
  out.close = backend.close.bind(backend);
  if (backend.memberHealth) out.memberHealth = backend.memberHealth.bind(backend);
  return out;
}

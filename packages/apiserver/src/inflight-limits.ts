// --max-requests-inflight and --max-mutating-requests-inflight. A request counts only once its body has
// been received (fastify's preHandler stage), so clients that send headers and stall cannot hold the
// write limit: reading a body is bounded by the connection limits instead (connection-limits.ts).
// Long-running requests (watches, logs, proxies) are not counted, as in Kubernetes.
import { errors, toStatus } from '@kemu/api';
import type { FastifyInstance } from 'fastify';
import { isLongRunning } from './long-running.ts';
import type { Metrics } from './metrics.ts';

export interface InflightLimits {
  /** 0 means no limit. */
  maxReadOnly: number;
  maxMutating: number;
}

export function installInflightLimits(app: FastifyInstance, limits: InflightLimits, metrics: Metrics): void {
  let readOnly = 0;
  let mutating = 0;
  app.addHook('preHandler', async (req, reply) => {
    if (isLongRunning(req.url, req.method)) return undefined;
    const isMutating = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';
    const max = isMutating ? limits.maxMutating : limits.maxReadOnly;
    if (max > 0 && (isMutating ? mutating : readOnly) >= max) {
      const body = Buffer.from(JSON.stringify(toStatus(errors.tooManyRequests(1))));
      return reply.code(429).headers({ 'content-type': 'application/json', 'retry-after': '1' }).send(body);
    }
    if (isMutating) mutating++;
    else readOnly++;
    metrics.inflight.set({ request_kind: isMutating ? 'mutating' : 'readOnly' }, isMutating ? mutating : readOnly);
    reply.raw.once('close', () => {
      if (isMutating) mutating--;
      else readOnly--;
    });
    return undefined;
  });
}

// The compose lab's metrics-server behind the APIService v1beta1.metrics.k8s.io: the addon's objects as `kemu up`
// makes them (metrics-server-objects.ts), the Endpoints of the selector-less Service listing the container's IP on
// the compose network. Docker picks that IP, so it is read from the engine on every `kemu compose up`.
import { containerAddresses } from './docker.ts';
import { ensureMetricsServerObjects } from '../metrics-server-objects.ts';
import type { RestClient } from '@kemu/client';

/** The compose service's name (= its container's) and its --secure-port. */
export const METRICS_SERVER_CONTAINER = 'metrics-server';
export const COMPOSE_METRICS_SERVER_PORT = 10250;

/** f until it succeeds or the deadline passes (then its last error): a request through the balancer of a loaded machine can fail once. */
export async function retryUntil<T>(deadline: number, f: () => Promise<T>, onRetry: (why: string) => void = () => {}): Promise<T> {
  for (;;) {
    try {
      return await f();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      onRetry((e as Error).message);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Makes the objects with the Endpoints once the container has an address (a container still starting has none yet). */
export function ensureComposeMetricsServer(client: RestClient, deadline: number, onRetry?: (why: string) => void): Promise<{ address: string; made: string[] }> {
  return retryUntil(
    deadline,
    async () => {
      const [address] = await containerAddresses(METRICS_SERVER_CONTAINER);
      if (!address) throw new Error(`container ${METRICS_SERVER_CONTAINER} has no address yet`);
      return { address, made: await ensureMetricsServerObjects(client, [address], COMPOSE_METRICS_SERVER_PORT) };
    },
    onRetry,
  );
}

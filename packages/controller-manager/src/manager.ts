// One leadership term: fresh informers (a new leader starts from a fresh, synced cache), one context per
// controller (its own event source), all controllers started together and stopped by the same signal.
import { setMaxListeners } from 'node:events';
import { EventRecorder, SharedInformerFactory, type RestClient } from '@kemu/client';
import type { Clock, Logger } from '@kemu/base';
import type { Controller, ControllerContext, ControllerDescriptor } from './controller.ts';
import type { ControllerManagerOptions } from './options.ts';
import { rootClientBuilder, type ControllerClientBuilder } from './clientbuilder/client-builder.ts';

export interface RunControllersOptions {
  /** The manager's own client: shared informers list and watch with it (Kubernetes' "shared-informers" root client). */
  client: RestClient;
  /** Each controller's client (default: the manager's own client for all). */
  clientBuilder?: ControllerClientBuilder;
  descriptors: readonly ControllerDescriptor[];
  options: ControllerManagerOptions;
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  hostname: string;
  /** For tests: a prepared factory (default: a new one per call). */
  informers?: SharedInformerFactory;
}

/** A controller could not be created (a bad --root-ca-file, key file or --cluster-cidr): the term fails. */
export class ControllerStartError extends Error {}

export async function runControllers(o: RunControllersOptions): Promise<void> {
  if (o.signal.aborted) return;
  // Every controller, queue and informer listens on this one signal.
  setMaxListeners(0, o.signal);
  const informers = o.informers ?? new SharedInformerFactory(o.client, { clock: o.clock, logger: o.logger });
  const builder = o.clientBuilder ?? rootClientBuilder(o.client);
  const started: { controller: Controller; ctx: ControllerContext }[] = [];
  for (const d of o.descriptors) {
    let client: RestClient;
    try {
      client = d.rootClient ? o.client : await builder.client(d.serviceAccountName);
    } catch (e) {
      // Kubernetes' ClientOrDie exits the process: the term's work fails (main exits 1).
      o.logger.error({ controller: d.name, serviceAccount: d.serviceAccountName, err: String(e) }, 'Error in getting client');
      throw e;
    }
    if (o.signal.aborted) return;
    const recorder = new EventRecorder(client, { component: d.eventComponent ?? d.name, host: o.hostname }, { clock: o.clock, logger: o.logger });
    const ctx: ControllerContext = {
      client,
      informers,
      recorder,
      clock: o.clock,
      logger: o.logger.child({ controller: d.name }),
      options: o.options,
      signal: o.signal,
    };
    let controller: Controller | undefined;
    try {
      controller = d.create(ctx);
    } catch (e) {
      // Kubernetes' StartControllers stops at the first failure and the process exits 1 (main).
      o.logger.error({ controller: d.name, err: String(e) }, 'Error starting controller');
      throw new ControllerStartError((e as Error).message);
    }
    if (!controller) continue;
    started.push({ controller, ctx });
    o.logger.info({ controller: d.name }, 'Started controller');
  }
  informers.start(o.signal);
  await Promise.all(
    started.map(({ controller, ctx }) =>
      controller.run(ctx).catch((e: unknown) => {
        if (!o.signal.aborted) o.logger.error({ controller: controller.name, err: String(e) }, 'controller stopped with an error');
      }),
    ),
  );
  await Promise.all(started.map(({ ctx }) => ctx.recorder.flush().catch(() => undefined)));
}

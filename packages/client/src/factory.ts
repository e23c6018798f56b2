// SharedInformerFactory (client-go's informers.SharedInformerFactory): one informer per (resource,
// namespace, labelSelector, fieldSelector), so every controller in a process shares one watch and one cache.
import { groupVersion, type KubeObject, type ResourceInfo } from '@kemu/api';
import { realClock, silentLogger, type Clock, type Logger } from '@kemu/base';
import { SharedInformer } from './informer.ts';
import { listWatchFor } from './listwatch.ts';
import type { ReflectorOptions } from './reflector.ts';
import type { RestClient } from './rest.ts';

export interface SharedInformerFactoryOptions extends Omit<ReflectorOptions, 'name' | 'clock' | 'logger'> {
  /** Default resync period for handlers added without one (0 = none). */
  resyncMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private signal: AbortSignal | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(
    private readonly client: RestClient,
    private readonly opts: SharedInformerFactoryOptions = {},
  ) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silentLogger();
  }

  informerFor<T extends KubeObject>(
    r: ResourceInfo,
    scope: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
  ): SharedInformer<T> {
    const namespace = r.namespaced ? scope.namespace : undefined;
    const key = [groupVersion(r), r.plural, namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? ''].join('|');
    let inf = this.informers.get(key);
    if (!inf) {
      const name = `${r.plural}${r.group ? `.${r.group}` : ''}${namespace ? ` in ${namespace}` : ''}`;
      inf = new SharedInformer<KubeObject>(listWatchFor<KubeObject>(this.client, r, { ...scope, namespace }), {
        ...this.opts,
        name,
        clock: this.clock,
        logger: this.log,
      });
      this.informers.set(key, inf);
      if (this.signal) this.run(inf, this.signal);
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** Starts every informer created so far, and any created later. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const inf of this.informers.values()) if (!inf.isStarted()) this.run(inf, signal);
  }

  /** True once every informer created so far has synced; false if the signal aborts first. */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    const all = Promise.all([...this.informers.values()].map((i) => i.whenSynced())).then(() => true);
    const aborted = new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
    return Promise.race([all, aborted]);
  }

  private run(inf: SharedInformer<KubeObject>, signal: AbortSignal): void {
    inf.run(signal).catch((e: unknown) => this.log.error({ err: String(e) }, 'informer stopped'));
  }
}

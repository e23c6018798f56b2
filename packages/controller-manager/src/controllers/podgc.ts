// pod-garbage-collector: every 20 s, force-deletes pods bound to Nodes that no longer exist (after checking
// with the apiserver, not only the cache), terminating pods that were never scheduled, and the oldest
// terminated pods beyond --terminated-pod-gc-threshold (<= 0 turns that part off).
import { R, parseTime, type Node, type Pod } from '@kemu/api';
import { isNotFound, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';

export const GC_CHECK_PERIOD_MS = 20_000;

export class PodGCController implements Controller {
  readonly name = 'pod-garbage-collector';
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;

  constructor(private readonly ctx: ControllerContext) {
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
    this.nodes = ctx.informers.informerFor<Node>(R.nodes);
  }

  async run(): Promise<void> {
    const { signal, clock } = this.ctx;
    if (!(await this.ctx.informers.waitForCacheSync(signal))) return;
    while (!signal.aborted) {
      try {
        await this.gc();
      } catch (e) {
        if (!signal.aborted) this.ctx.logger.warn({ err: String(e) }, 'pod GC pass failed');
      }
      try {
        await clock.sleep(GC_CHECK_PERIOD_MS, signal);
      } catch {
        break;
      }
    }
  }

  async gc(): Promise<void> {
    const pods = this.pods.store.list();
    await this.gcTerminated(pods);
    await this.gcOrphaned(pods);
    await this.gcUnscheduledTerminating(pods);
  }

  private async forceDelete(pod: Pod, why: string): Promise<void> {
    const ref = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
    this.ctx.logger.info({ pod: ref, why }, 'PodGC is force deleting Pod');
    try {
      await this.ctx.client.delete(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', {
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata.uid },
      });
    } catch (e) {
      if (!isNotFound(e)) this.ctx.logger.warn({ pod: ref, err: String(e) }, 'failed to delete pod');
    }
  }

  private async gcTerminated(pods: Pod[]): Promise<void> {
    const threshold = this.ctx.options['terminated-pod-gc-threshold'];
    if (threshold <= 0) return;
    const terminated = pods.filter((p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed');
    const excess = terminated.length - threshold;
    if (excess <= 0) return;
    terminated.sort((a, b) => parseTime(a.metadata.creationTimestamp) - parseTime(b.metadata.creationTimestamp));
    for (const p of terminated.slice(0, excess)) await this.forceDelete(p, 'terminated pods above threshold');
  }

  private async gcOrphaned(pods: Pod[]): Promise<void> {
    const missing = new Map<string, boolean>();
    for (const p of pods) {
      const node = p.spec.nodeName;
      if (!node || this.nodes.store.get(node)) continue;
      let gone = missing.get(node);
      if (gone === undefined) {
        // The cache may lag: ask the apiserver before deleting anything.
        try {
          await this.ctx.client.get(R.nodes, undefined, node);
          gone = false;
        } catch (e) {
          if (!isNotFound(e)) throw e;
          gone = true;
        }
        missing.set(node, gone);
      }
      if (gone) await this.forceDelete(p, `node ${node} no longer exists`);
    }
  }

  private async gcUnscheduledTerminating(pods: Pod[]): Promise<void> {
    for (const p of pods) if (!p.spec.nodeName && p.metadata.deletionTimestamp) await this.forceDelete(p, 'unscheduled and terminating');
  }
}

export const podGCDescriptor: ControllerDescriptor = {
  name: 'pod-garbage-collector',
  serviceAccountName: 'pod-garbage-collector',
  aliases: ['podgc'],
  enabledByDefault: true,
  create: (ctx) => new PodGCController(ctx),
};

// A graph kept current from a source of pods read on demand: before each answer it asks the source for
// the pod changes since the position it last reached and applies them, or rebuilds from the full list when
// the source can no longer tell (its history moved past that position, or it was rebuilt). A decision
// therefore sees at least every pod change the apiserver's watch cache had when the request arrived, and
// costs nothing on the write path; with no pod change since the last decision the check is one comparison.
import type { KubeObject } from '@kemu/api';
import { NodeGraph, type NodeGraphView, type PathResult, type VertexType } from './graph.ts';
import { applyPodEvent, boundPod, type PodEvent } from './graph-populator.ts';

/** Where a feed's reader stands: `epoch` changes when the source starts over (its revisions then mean nothing). */
export interface FeedPosition {
  readonly epoch: object;
  readonly rv: number;
}

export interface PodFeed {
  /** False while the source is being rebuilt: the graph then keeps the state it has. */
  ready(): boolean;
  /** Where the source is now (cheap: compared before anything else is asked). */
  position(): FeedPosition;
  /** Every pod, and the position that state is at. */
  list(): { pods: Iterable<KubeObject>; position: FeedPosition };
  /** Pod changes after `from`, oldest first, up to position(); undefined when they can no longer be told. */
  changesSince(from: FeedPosition): PodEvent[] | undefined;
}

export class SyncedNodeGraph implements NodeGraphView {
  readonly graph = new NodeGraph();
  private at: FeedPosition | undefined;
  /** How often the graph was rebuilt from a full list (for tests and the benchmark). */
  rebuilds = 0;
  /** Stops the background sync keepUp() started (a no-op when none). */
  stopKeepUp: () => void = () => undefined;

  constructor(private readonly feed: PodFeed) {}

  /** Brings the graph up to the feed's current position (the authorizer calls this through hasPathFrom). */
  sync(): void {
    if (!this.feed.ready()) return;
    const now = this.feed.position();
    const at = this.at;
    if (at && at.epoch === now.epoch && at.rv === now.rv) return;
    const events = at && at.epoch === now.epoch ? this.feed.changesSince(at) : undefined;
    if (events) {
      for (const ev of events) applyPodEvent(this.graph, ev);
      this.at = now;
      return;
    }
    this.rebuild();
  }

  private rebuild(): void {
    const { pods, position } = this.feed.list();
    // Until the rebuild completes, the next sync starts over (a half-built graph is never caught up from).
    this.at = undefined;
    this.graph.clear();
    for (const pod of pods) {
      const p = boundPod(pod);
      if (p) this.graph.addPod(p);
    }
    this.at = position;
    this.rebuilds++;
  }

  /**
   * Also syncs every `intervalMs` in the background (an unref'd timer), so the graph never falls so far
   * behind that a decision must rebuild it (10,000 pods: a few hundred ms of CPU) and is built before the
   * first kubelet asks. Returns the stop function.
   */
  keepUp(intervalMs = 1000): () => void {
    this.stopKeepUp();
    // A failure here must not take the apiserver down: the next decision or tick tries again.
    const tick = (): void => {
      try {
        this.sync();
      } catch {
        /* retried */
      }
    };
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    tick();
    this.stopKeepUp = () => clearInterval(timer);
    return this.stopKeepUp;
  }

  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): PathResult {
    this.sync();
    return this.graph.hasPathFrom(nodeName, type, namespace, name);
  }
}

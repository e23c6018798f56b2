// Removing one node (core/scaledown/actuation): taint it ToBeDeletedByClusterAutoscaler (NoSchedule), evict its
// pods through the Eviction API — a 429 (a PodDisruptionBudget) is retried until the eviction deadline, then the
// drain is aborted and the taint removed: the node stays — wait for the pods to go, then ask the cloud to delete the
// machine. The Node object is the cloud's to remove (a cloud-controller-manager's, kemu's cloud in the lab): the
// autoscaler's ClusterRole has no `delete` on nodes.
import type { Node, Pod } from '@kemu/api';
import type { Clock } from '@kemu/base';
import type { NodeGroup } from '../cloudprovider/interface.ts';

export type EvictionResult = 'evicted' | 'gone' | 'blocked' | 'error';

/** The API calls a removal makes; main.ts backs it with the RestClient and informers, tests with a fake. */
export interface ActuatorApi {
  addToBeDeletedTaint(nodeName: string, value: string): Promise<void>;
  removeToBeDeletedTaint(nodeName: string): Promise<void>;
  evict(pod: Pod): Promise<{ result: EvictionResult; message?: string }>;
  /** Pods still bound to the node that must leave it (not DaemonSet/mirror pods). */
  podsLeft(nodeName: string, pods: readonly Pod[]): readonly Pod[];
  event(obj: Node | Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface ActuatorOptions {
  clock: Clock;
  /** How long evictions are retried (the autoscaler's MaxPodEvictionTime, 2m). */
  maxPodEvictionMs: number;
  /** Between eviction retries (EvictionRetryTime, 10s). */
  evictionRetryMs: number;
  /** How long to wait for evicted pods to be gone (--max-graceful-termination-sec plus headroom). */
  podsGoneTimeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RemovalResult {
  removed: boolean;
  /** Why not, for the log and the status. */
  error?: string;
}

export async function removeNode(node: Node, group: NodeGroup, pods: readonly Pod[], api: ActuatorApi, o: ActuatorOptions): Promise<RemovalResult> {
  const name = node.metadata.name ?? '';
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  try {
    await api.addToBeDeletedTaint(name, String(Math.floor(o.clock.now() / 1000)));
  } catch (e) {
    api.event(node, 'Warning', 'ScaleDownFailed', `failed to mark the node as toBeDeleted/unschedulable: ${(e as Error).message}`);
    return { removed: false, error: (e as Error).message };
  }
  api.event(node, 'Normal', 'ScaleDown', 'marked the node as toBeDeleted/unschedulable');

  const abort = async (error: string): Promise<RemovalResult> => {
    await api.removeToBeDeletedTaint(name).catch(() => undefined);
    api.event(node, 'Warning', 'ScaleDownFailed', 'failed to drain the node, aborting ScaleDown');
    return { removed: false, error };
  };

  const deadline = o.clock.now() + o.maxPodEvictionMs;
  let left = [...pods];
  for (const p of left) api.event(p, 'Normal', 'ScaleDown', 'deleting pod for node scale down');
  let lastError = '';
  for (;;) {
    const next: Pod[] = [];
    for (const p of left) {
      const r = await api.evict(p);
      if (r.result === 'blocked' || r.result === 'error') {
        next.push(p);
        lastError = `failed to evict pod ${p.metadata.namespace}/${p.metadata.name}: ${r.message ?? r.result}`;
      }
    }
    left = next;
    if (left.length === 0) break;
    if (o.clock.now() + o.evictionRetryMs > deadline) return abort(lastError);
    await sleep(o.evictionRetryMs);
  }
  // Evicted pods terminate with their grace period; the node goes once they are gone.
  const goneBy = o.clock.now() + o.podsGoneTimeoutMs;
  while (api.podsLeft(name, pods).length > 0) {
    if (o.clock.now() > goneBy) return abort(`pods of ${name} were evicted but did not terminate in time`);
    await sleep(Math.min(1000, o.evictionRetryMs));
  }
  try {
    await group.deleteNodes([name]);
  } catch (e) {
    api.event(node, 'Warning', 'ScaleDownFailed', 'failed to delete the node');
    await api.removeToBeDeletedTaint(name).catch(() => undefined);
    return { removed: false, error: (e as Error).message };
  }
  return { removed: true };
}

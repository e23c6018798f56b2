// node-lifecycle-controller: every --node-monitor-period, a Node whose Lease and status have not been renewed
// (as seen on this process's clock) within --node-monitor-grace-period gets its conditions set to Unknown
// ("Kubelet stopped posting node status."), its pods marked not Ready, and the unreachable taints; a Node that
// reports Ready=False gets the not-ready taints. NoExecute taints are added at --node-eviction-rate nodes per
// second; pods that do not tolerate them (or whose tolerationSeconds ran out) are deleted. Taints go when the
// Node is healthy again. A cordoned Node (spec.unschedulable) gets node.kubernetes.io/unschedulable:NoSchedule,
// removed on uncordon — at once, from the Node's update (Kubernetes' doNoScheduleTaintingPass on its
// nodeUpdateQueue), not at the next monitor pass.
import { R, formatTime, parseTime, type Condition, type Lease, type Node, type Pod, type Taint, type Toleration } from '@kemu/api';
import { isNotFound, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const NODE_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

interface Health {
  /** Local time the controller last saw the node's heartbeat or lease move. */
  probe: number;
  heartbeat: string;
  lease: string;
  everReady: boolean;
}

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (!t.key) return t.operator === 'Exists';
  if (t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

/**
 * The cordon part of doNoScheduleTaintingPass: the Node's taints with unschedulable:NoSchedule added (with
 * timeAdded, as SwapNodeControllerTaint sets it) while spec.unschedulable is true and removed otherwise;
 * undefined when they are right already.
 */
export function cordonTaints(node: Node, now: number): Taint[] | undefined {
  const taints = node.spec?.taints ?? [];
  const isCordonTaint = (t: Taint) => t.key === TAINT_UNSCHEDULABLE && t.effect === 'NoSchedule';
  const want = node.spec?.unschedulable === true;
  if (taints.some(isCordonTaint) === want) return undefined;
  return want ? [...taints, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule', timeAdded: formatTime(now) }] : taints.filter((t) => !isCordonTaint(t));
}

/** When a pod must go because of the node's NoExecute taints: 0 now, a time, or undefined (never). */
export function evictionTime(pod: Pod, taints: Taint[], now: number): number | undefined {
  let at: number | undefined;
  for (const taint of taints) {
    if (taint.effect !== 'NoExecute') continue;
    const tols = (pod.spec.tolerations ?? []).filter((t) => tolerates(t, taint));
    if (tols.length === 0) return 0;
    const secs = tols.map((t) => t.tolerationSeconds).filter((s): s is number => s !== undefined && s !== null);
    if (secs.length < tols.length) continue; // one toleration without a limit: tolerated forever
    const added = parseTime(taint.timeAdded);
    const t = (Number.isFinite(added) ? added : now) + Math.max(0, Math.min(...secs)) * 1000;
    if (at === undefined || t < at) at = t;
  }
  return at;
}

export class NodeLifecycleController implements Controller {
  readonly name = 'node-lifecycle-controller';
  private readonly nodes: SharedInformer<Node>;
  private readonly leases: SharedInformer<Lease>;
  private readonly pods: SharedInformer<Pod>;
  private readonly health = new Map<string, Health>();
  private lastNoExecuteTaint = -Infinity;
  /** Nodes whose NoSchedule (cordon) taint is to be checked, queued by every Node add and update. */
  private readonly noSchedule: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.informerFor<Node>(R.nodes);
    this.noSchedule = new KeyedWorker(ctx, { name: 'node-lifecycle-no-schedule', workers: 1, sync: (name) => this.syncNoScheduleTaints(name) });
    this.nodes.addEventHandler({ onAdd: (n) => this.noSchedule.enqueue(n), onUpdate: (_o, n) => this.noSchedule.enqueue(n) });
    // Cluster-wide (shared with other controllers); node leases are looked up by their kube-node-lease key.
    this.leases = ctx.informers.informerFor<Lease>(R.leases);
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
  }

  async run(): Promise<void> {
    await Promise.all([this.noSchedule.run(), this.monitorLoop()]);
  }

  /** Adds or removes the cordon taint of one Node (a Conflict requeues it). */
  async syncNoScheduleTaints(name: string): Promise<void> {
    const node = this.nodes.store.get(name);
    if (!node) return;
    const next = cordonTaints(node, this.ctx.clock.now());
    if (!next) return;
    await this.ctx.client.patch(R.nodes, undefined, name, {
      metadata: { resourceVersion: node.metadata.resourceVersion },
      spec: { taints: next.length ? next : null },
    }, 'merge');
  }

  private async monitorLoop(): Promise<void> {
    const { signal, clock } = this.ctx;
    if (!(await this.ctx.informers.waitForCacheSync(signal))) return;
    this.ctx.logger.info('Starting node-lifecycle-controller');
    while (!signal.aborted) {
      try {
        await this.monitor();
      } catch (e) {
        if (!signal.aborted) this.ctx.logger.warn({ err: String(e) }, 'node monitor pass failed');
      }
      try {
        await clock.sleep(this.ctx.options['node-monitor-period'], signal);
      } catch {
        break;
      }
    }
  }

  /** One pass over every Node (exported through the class for tests). */
  async monitor(): Promise<void> {
    const now = this.ctx.clock.now();
    const seen = new Set<string>();
    for (const node of this.nodes.store.list()) {
      const name = node.metadata.name ?? '';
      seen.add(name);
      try {
        await this.checkNode(node, now);
      } catch (e) {
        if (!isNotFound(e)) this.ctx.logger.warn({ node: name, err: String(e) }, 'failed to update node health');
      }
    }
    for (const name of [...this.health.keys()]) if (!seen.has(name)) this.health.delete(name);
    await this.evictPods(now);
  }

  private observe(node: Node, now: number): Health {
    const name = node.metadata.name ?? '';
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const heartbeat = ready?.lastHeartbeatTime ?? '';
    const lease = this.leases.store.get(`kube-node-lease/${name}`)?.spec?.renewTime ?? '';
    let h = this.health.get(name);
    if (!h) {
      h = { probe: now, heartbeat, lease, everReady: false };
      this.health.set(name, h);
    } else if (h.heartbeat !== heartbeat || h.lease !== lease) {
      h.probe = now;
      h.heartbeat = heartbeat;
      h.lease = lease;
    }
    if (ready?.status === 'True') h.everReady = true;
    return h;
  }

  private async checkNode(node: Node, now: number): Promise<void> {
    const name = node.metadata.name ?? '';
    const h = this.observe(node, now);
    const conditions = node.status?.conditions ?? [];
    const ready = conditions.find((c) => c.type === 'Ready');
    const grace = h.everReady || ready ? this.ctx.options['node-monitor-grace-period'] : this.ctx.options['node-startup-grace-period'];
    let current = node;
    if (now - h.probe > grace && (!ready || ready.status !== 'Unknown')) current = await this.markUnknown(node, conditions, now);
    // A Node that has not posted any status yet (and is within its startup grace) is left alone.
    await this.reconcileTaints(current, current !== node ? 'Unknown' : (ready?.status ?? 'None'), now);
  }

  private async markUnknown(node: Node, conditions: Condition[], now: number): Promise<Node> {
    const name = node.metadata.name ?? '';
    const t = formatTime(now);
    const hadReady = conditions.some((c) => c.type === 'Ready');
    const next: Condition[] = NODE_CONDITIONS.map((type) => {
      const prev = conditions.find((c) => c.type === type);
      return {
        type,
        status: 'Unknown',
        reason: hadReady ? 'NodeStatusUnknown' : 'NodeStatusNeverUpdated',
        message: hadReady ? 'Kubelet stopped posting node status.' : 'Kubelet never posted node status.',
        lastHeartbeatTime: prev?.lastHeartbeatTime ?? t,
        lastTransitionTime: t,
      };
    });
    for (const c of conditions) if (!NODE_CONDITIONS.includes(c.type)) next.push(c);
    const updated = await this.ctx.client.patch<Node>(R.nodes, undefined, name, { status: { conditions: next } }, 'merge', { subresource: 'status' });
    this.ctx.logger.info({ node: name }, 'Node is unresponsive; marked its conditions Unknown');
    this.ctx.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    await this.markPodsNotReady(name, now);
    return updated;
  }

  private async markPodsNotReady(nodeName: string, now: number): Promise<void> {
    for (const pod of this.pods.store.list()) {
      if (pod.spec.nodeName !== nodeName) continue;
      const conds = pod.status?.conditions ?? [];
      const ready = conds.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const next = conds.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' as const, lastTransitionTime: formatTime(now) } : c));
      try {
        await this.ctx.client.patch(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', { status: { conditions: next } }, 'merge', {
          subresource: 'status',
        });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  private async reconcileTaints(node: Node, readyStatus: string, now: number): Promise<void> {
    const taints = node.spec?.taints ?? [];
    const ours = new Set([TAINT_UNREACHABLE, TAINT_NOT_READY]);
    const want =
      readyStatus === 'Unknown' ? TAINT_UNREACHABLE : readyStatus === 'False' ? TAINT_NOT_READY : undefined;
    const have = taints.filter((t) => ours.has(t.key));
    const wantTaints: Taint[] = want
      ? [
          { key: want, effect: 'NoSchedule' },
          { key: want, effect: 'NoExecute' },
        ]
      : [];
    const same = have.length === wantTaints.length && wantTaints.every((w) => have.some((h) => h.key === w.key && h.effect === w.effect));
    if (same) return;
    // NoExecute taints (which evict pods) are rate limited by --node-eviction-rate; removals never are.
    const addsNoExecute = wantTaints.some((w) => w.effect === 'NoExecute' && !have.some((h) => h.key === w.key && h.effect === w.effect));
    const rate = this.ctx.options['node-eviction-rate'];
    let keep = wantTaints;
    if (addsNoExecute) {
      if (rate <= 0 || now - this.lastNoExecuteTaint < 1000 / rate) keep = wantTaints.filter((w) => w.effect !== 'NoExecute');
      else this.lastNoExecuteTaint = now;
    }
    const t = formatTime(now);
    const next: Taint[] = [
      ...taints.filter((x) => !ours.has(x.key)),
      ...keep.map((w) => have.find((h) => h.key === w.key && h.effect === w.effect) ?? { ...w, timeAdded: t }),
    ];
    if (JSON.stringify(next) === JSON.stringify(taints)) return;
    await this.ctx.client.patch(R.nodes, undefined, node.metadata.name ?? '', {
      metadata: { resourceVersion: node.metadata.resourceVersion },
      spec: { taints: next.length ? next : null },
    }, 'merge');
  }

  private async evictPods(now: number): Promise<void> {
    for (const pod of this.pods.store.list()) {
      if (!pod.spec.nodeName || pod.metadata.deletionTimestamp) continue;
      const node = this.nodes.store.get(pod.spec.nodeName);
      const taints = node?.spec?.taints ?? [];
      if (!taints.some((t) => t.effect === 'NoExecute')) continue;
      const at = evictionTime(pod, taints, now);
      if (at === undefined || at > now) continue;
      const ref = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
      this.ctx.recorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${ref}`);
      try {
        await this.ctx.client.delete(R.pods, pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
      } catch (e) {
        if (!isNotFound(e)) this.ctx.logger.warn({ pod: ref, err: String(e) }, 'failed to evict pod');
      }
    }
  }
}

export const nodeLifecycleDescriptor: ControllerDescriptor = {
  name: 'node-lifecycle-controller',
  serviceAccountName: 'node-controller',
  aliases: ['nodelifecycle'],
  enabledByDefault: true,
  create: (ctx) => new NodeLifecycleController(ctx),
};

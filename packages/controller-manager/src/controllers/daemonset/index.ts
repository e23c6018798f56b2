// daemonset-controller (pkg/controller/daemon): one pod per eligible node, placed by the default scheduler through
// the node affinity `metadata.name In [node]`; RollingUpdate (maxUnavailable, maxSurge) and OnDelete; the
// template's history as ControllerRevisions named <ds>-<hash>; status counts per node.
import {
  R,
  parseTime,
  selectorMatches,
  type ControllerRevision,
  type DaemonSet,
  type DaemonSetStatus,
  type Node,
  type ParsedSelector,
  type Pod,
} from '@kemu/api';
import { isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { Backoff } from '../backoff.ts';
import { Expectations } from '../expectations.ts';
import { PodControl, controllerRef, definitelyNotApplied } from '../podcontrol.ts';
import { claimCandidates, ensureControllerIndex, getControllerOf, isPodAvailable, isPodReady } from '../pods.ts';
import { claimObjects, recheckOwner } from '../refmanager.ts';
import { computeHash, scaledValue } from '../deployment/util.ts';
import {
  CONTROLLER_REVISION_HASH,
  createRevision,
  equalRevisions,
  nextRevision,
  ownedRevisions,
  renumberRevision,
  setSelector,
  templatePatch,
  truncateHistory,
} from '../history.ts';
import { nodeShouldRunDaemonPod, pinToNode, targetNodeName } from './pods.ts';

const API_VERSION = 'apps/v1';
const KIND = 'DaemonSet';
/** The DaemonSet's template generation, copied onto its pods as a label (extensions.DaemonSetTemplateGenerationKey). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** Kubernetes' BurstReplicas for DaemonSets. */
const BURST = 250;

const key = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

function isUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return labels[CONTROLLER_REVISION_HASH] === hash || (generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === generation);
}

const byCreation = (a: Pod, b: Pod) => parseTime(a.metadata.creationTimestamp) - parseTime(b.metadata.creationTimestamp) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

export class DaemonSetController implements Controller {
  readonly name = 'daemonset-controller';
  readonly expectations: Expectations;
  private readonly dsInformer: SharedInformer<DaemonSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly nodeInformer: SharedInformer<Node>;
  private readonly crInformer: SharedInformer<ControllerRevision>;
  private readonly worker: KeyedWorker;
  private readonly podControl: PodControl;
  private readonly failedPodsBackoff = new Backoff(1000, 15 * 60_000);

  constructor(private readonly ctx: ControllerContext) {
    this.expectations = new Expectations(ctx.clock);
    this.podControl = new PodControl(ctx.client, ctx.recorder);
    this.dsInformer = ctx.informers.informerFor<DaemonSet>(R.daemonsets);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    this.nodeInformer = ctx.informers.informerFor<Node>(R.nodes);
    this.crInformer = ctx.informers.informerFor<ControllerRevision>(R.controllerrevisions);
    ensureControllerIndex(this.podInformer);
    this.worker = new KeyedWorker(ctx, {
      name: this.name,
      workers: ctx.options['concurrent-daemonset-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.dsInformer, this.podInformer, this.nodeInformer, this.crInformer);
    this.dsInformer.addEventHandler({
      onAdd: (ds) => this.worker.enqueue(ds),
      onUpdate: (_o, ds) => this.worker.enqueue(ds),
      onDelete: (obj) => {
        const ds = unwrapDeleted(obj);
        this.expectations.delete(key(ds.metadata.namespace, ds.metadata.name));
      },
    });
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podEvent(pod, 'add'),
      onUpdate: (_o, pod) => this.podEvent(pod, pod.metadata.deletionTimestamp ? 'delete' : 'update'),
      onDelete: (obj) => this.podEvent(unwrapDeleted(obj), 'delete'),
    });
    // addHistory/updateHistory: a revision wakes its owner, or, orphaned, the DaemonSets whose selector it matches
    // (one may adopt it); a revision whose labels changed may need releasing, so its owner syncs too.
    const historyEvent = (cr: ControllerRevision) => {
      const ref = getControllerOf(cr);
      if (ref) {
        if (ref.kind !== KIND) return;
        const owner = this.dsInformer.store.get(key(cr.metadata.namespace, ref.name));
        if (owner?.metadata.uid === ref.uid) this.worker.enqueue(owner);
        return;
      }
      for (const d of this.dsInformer.store.byIndex('namespace', cr.metadata.namespace ?? '')) {
        const sel = setSelector(d.spec.selector);
        if (sel && selectorMatches(sel, cr.metadata.labels)) this.worker.enqueue(d);
      }
    };
    this.crInformer.addEventHandler({ onAdd: historyEvent, onUpdate: (_o, cr) => historyEvent(cr) });
    // Any node change may change where daemon pods belong.
    const allDaemonSets = () => {
      for (const ds of this.dsInformer.store.list()) this.worker.enqueue(ds);
    };
    this.nodeInformer.addEventHandler({ onAdd: allDaemonSets, onUpdate: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion && allDaemonSets(), onDelete: allDaemonSets });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private owner(pod: Pod): DaemonSet | undefined {
    const ref = getControllerOf(pod);
    if (!ref || ref.kind !== KIND) return undefined;
    const ds = this.dsInformer.store.get(key(pod.metadata.namespace, ref.name));
    return ds && ds.metadata.uid === ref.uid ? ds : undefined;
  }

  private podEvent(pod: Pod, what: 'add' | 'update' | 'delete'): void {
    const ds = this.owner(pod);
    if (!ds) {
      if (what !== 'delete' && !getControllerOf(pod)) for (const d of this.dsInformer.store.byIndex('namespace', pod.metadata.namespace ?? '')) this.worker.enqueue(d);
      return;
    }
    const k = key(ds.metadata.namespace, ds.metadata.name);
    if (what === 'add') this.expectations.creationObserved(k);
    if (what === 'delete') this.expectations.deletionObserved(k, key(pod.metadata.namespace, pod.metadata.name));
    this.worker.add(k);
  }

  async sync(dsKey: string): Promise<void> {
    const cached = this.dsInformer.store.get(dsKey);
    if (!cached) {
      this.expectations.delete(dsKey);
      return;
    }
    const ds = structuredClone(cached);
    const selector = setSelector(ds.spec.selector);
    if (!selector) return;
    if (ds.metadata.deletionTimestamp) return;
    const nodes = this.nodeInformer.store.list();
    const { hash, revisions, current } = await this.constructHistory(ds);
    // The expectations before the pods (as Kubernetes): one observed while podsByNode awaits must not vouch for
    // a pod list taken before it.
    const satisfied = this.expectations.satisfied(dsKey);
    const nodeToPods = await this.podsByNode(ds, selector);
    const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    if (!satisfied) {
      this.worker.addAfter(dsKey, this.expectations.msUntilExpired(dsKey));
      await this.updateStatus(ds, nodes, nodeToPods, hash, generation);
      return;
    }
    let error: unknown;
    try {
      await this.manage(dsKey, ds, nodes, nodeToPods, hash, generation);
      if (this.expectations.satisfied(dsKey) && (ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        await this.rollingUpdate(dsKey, ds, nodes, await this.podsByNode(ds, selector), hash, generation);
      }
      // Keep the live revisions and revisionHistoryLimit old ones.
      const live = new Set<string>([current.metadata.name ?? '']);
      for (const pods of nodeToPods.values())
        for (const p of pods) {
          const h = p.metadata.labels?.[CONTROLLER_REVISION_HASH];
          const r = revisions.find((x) => x.metadata.labels?.[CONTROLLER_REVISION_HASH] === h);
          if (r) live.add(r.metadata.name ?? '');
        }
      await truncateHistory(this.ctx.client, revisions, live, ds.spec.revisionHistoryLimit ?? 10);
    } catch (e) {
      error = e;
    }
    await this.updateStatus(ds, nodes, await this.podsByNode(ds, selector).catch(() => nodeToPods), hash, generation);
    if (error !== undefined) throw error;
  }

  /** The current revision (created, or renumbered on a rollback) and the DaemonSet's revisions. */
  private async constructHistory(ds: DaemonSet): Promise<{ hash: string; revisions: ControllerRevision[]; current: ControllerRevision }> {
    // controlledHistories: adopt matching orphans, release owned revisions the selector no longer matches.
    const selector = setSelector(ds.spec.selector);
    const inNamespace = this.crInformer.store.byIndex('namespace', ds.metadata.namespace ?? '');
    const claimed = selector
      ? await claimObjects(inNamespace, {
          client: this.ctx.client,
          owner: ds,
          ref: controllerRef(ds, API_VERSION, KIND),
          selector,
          resource: R.controllerrevisions,
          canAdopt: recheckOwner(this.ctx.client, R.daemonsets, ds),
        })
      : inNamespace;
    const revisions = ownedRevisions(claimed, ds);
    const data = templatePatch(ds.spec.template);
    const probe = { data } as ControllerRevision;
    const next = nextRevision(revisions);
    const match = revisions.filter((r) => equalRevisions(r, probe));
    let current: ControllerRevision;
    if (match.length > 0) {
      const newest = match[match.length - 1] as ControllerRevision;
      current = newest.revision === next - 1 ? newest : await renumberRevision(this.ctx.client, newest, next);
    } else {
      const collisions = ds.status?.collisionCount ?? 0;
      const created = await createRevision(
        this.ctx.client,
        {
          owner: ds,
          ref: controllerRef(ds, API_VERSION, KIND),
          name: (c) => `${ds.metadata.name ?? ''}-${computeHash(ds.spec.template, c)}`,
          labels: { ...(ds.spec.template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: computeHash(ds.spec.template, collisions) },
          ...(ds.metadata.annotations ? { annotations: ds.metadata.annotations } : {}),
          data,
          revision: next,
        },
        collisions,
      );
      current = created.revision;
      if (created.collisionCount !== collisions) {
        ds.status = { ...(ds.status ?? { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), collisionCount: created.collisionCount };
      }
      revisions.push(current);
    }
    const hash = current.metadata.labels?.[CONTROLLER_REVISION_HASH] ?? computeHash(ds.spec.template, ds.status?.collisionCount);
    return { hash, revisions, current };
  }

  /** The DaemonSet's pods (claimed: adopted orphans, released mismatches) by the node they are or will be on. */
  private async podsByNode(ds: DaemonSet, selector: ParsedSelector): Promise<Map<string, Pod[]>> {
    const owned = await claimObjects(claimCandidates(this.podInformer.store, ds), {
      client: this.ctx.client,
      owner: ds,
      ref: controllerRef(ds, API_VERSION, KIND),
      selector,
      resource: R.pods,
      canAdopt: recheckOwner(this.ctx.client, R.daemonsets, ds),
    });
    const out = new Map<string, Pod[]>();
    for (const p of owned) {
      const n = targetNodeName(p);
      if (n === undefined) continue;
      out.set(n, [...(out.get(n) ?? []), p]);
    }
    return out;
  }

  private maxSurge(ds: DaemonSet, desired: number): number {
    const ru = ds.spec.updateStrategy?.rollingUpdate;
    if ((ds.spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return 0;
    return scaledValue(ru?.maxSurge, desired, true, 0);
  }

  /** manage + podsShouldBeOnNode: create where missing, delete where not wanted, failed or duplicated. */
  private async manage(dsKey: string, ds: DaemonSet, nodes: Node[], nodeToPods: Map<string, Pod[]>, hash: string, generation: string | undefined): Promise<void> {
    const create: string[] = [];
    const remove: Pod[] = [];
    this.failedPodsBackoff.gc(this.ctx.clock.now());
    const desired = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).length;
    const surge = this.maxSurge(ds, desired) > 0;
    const nodeNames = new Set(nodes.map((n) => n.metadata.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
      const pods = (nodeToPods.get(name) ?? []).filter((p) => !p.metadata.deletionTimestamp);
      if (shouldRun) {
        const failed = pods.filter((p) => p.status?.phase === 'Failed');
        remove.push(...this.failedToDelete(dsKey, ds, name, failed));
        const running = pods.filter((p) => p.status?.phase !== 'Failed').sort(byCreation);
        if (running.length === 0 && failed.length === 0) create.push(name);
        else if (running.length > 1) {
          if (surge) {
            // Keep the oldest updated and the oldest old pod; once the updated one is available the old one goes.
            const updated = running.filter((p) => isUpdated(p, hash, generation));
            const old = running.filter((p) => !isUpdated(p, hash, generation));
            remove.push(...updated.slice(1));
            if (updated.length > 0 && isPodAvailable(updated[0] as Pod, ds.spec.minReadySeconds ?? 0, this.ctx.clock.now())) remove.push(...old);
            else remove.push(...old.slice(1));
          } else remove.push(...running.slice(1));
        }
      } else if (!shouldContinueRunning) remove.push(...pods);
    }
    // Pods on nodes that no longer exist.
    for (const [name, pods] of nodeToPods) if (!nodeNames.has(name)) remove.push(...pods.filter((p) => !p.metadata.deletionTimestamp));
    await this.syncNodes(dsKey, ds, remove, create, hash, generation);
  }

  /**
   * failedPodsBackoff: a failed pod on a node is deleted (and replaced on a later pass) at most once per back-off
   * step (1s doubling to 15m), so a kubelet that keeps rejecting the pod is not fought in a hot loop.
   */
  private failedToDelete(dsKey: string, ds: DaemonSet, node: string, failed: Pod[]): Pod[] {
    const out: Pod[] = [];
    const backoffKey = `${ds.metadata.uid ?? ''}/${ds.status?.observedGeneration ?? 0}/${node}`;
    for (const pod of failed) {
      const now = this.ctx.clock.now();
      if (this.failedPodsBackoff.inBackoffSinceUpdate(backoffKey, now)) {
        this.worker.addAfter(dsKey, this.failedPodsBackoff.get(backoffKey));
        continue;
      }
      this.failedPodsBackoff.next(backoffKey, now);
      this.ctx.recorder.event(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} on node ${node}, will try to kill it`);
      out.push(pod);
    }
    return out;
  }

  /** syncNodes: create a pinned pod on each node in create, delete each pod in remove (burst-limited). */
  private async syncNodes(dsKey: string, ds: DaemonSet, remove: Pod[], create: string[], hash: string, generation: string | undefined): Promise<void> {
    const creates = create.slice(0, BURST);
    const deletes = remove.slice(0, BURST);
    if (creates.length === 0 && deletes.length === 0) return;
    this.expectations.expectCreations(dsKey, creates.length);
    this.expectations.expectDeletions(dsKey, deletes.map((p) => key(p.metadata.namespace, p.metadata.name)));
    const ref = controllerRef(ds, API_VERSION, KIND);
    const errors: unknown[] = [];
    await Promise.all(
      creates.map(async (node) => {
        const template = pinToNode(ds.spec.template, node);
        template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash } };
        if (generation !== undefined) (template.metadata.labels as Record<string, string>)[POD_TEMPLATE_GENERATION_LABEL] = generation;
        try {
          await this.podControl.createPod(ds, template, ref);
        } catch (e) {
          if (definitelyNotApplied(e)) this.expectations.lowerExpectations(dsKey, 1, 0);
          errors.push(e);
        }
      }),
    );
    await Promise.all(
      deletes.map(async (p) => {
        try {
          await this.podControl.deletePod(ds, p);
        } catch (e) {
          if (isNotFound(e) || definitelyNotApplied(e)) this.expectations.deletionObserved(dsKey, key(p.metadata.namespace, p.metadata.name));
          if (!isNotFound(e)) errors.push(e);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  }

  /** rollingUpdate (pkg/controller/daemon/update.go): replace old pods within maxUnavailable, or surge within maxSurge. */
  private async rollingUpdate(dsKey: string, ds: DaemonSet, nodes: Node[], nodeToPods: Map<string, Pod[]>, hash: string, generation: string | undefined): Promise<void> {
    const now = this.ctx.clock.now();
    const minReady = ds.spec.minReadySeconds ?? 0;
    const wanted = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).map((n) => n.metadata.name ?? '');
    const desired = wanted.length;
    const ru = ds.spec.updateStrategy?.rollingUpdate;
    const maxSurge = this.maxSurge(ds, desired);
    const maxUnavailable = scaledValue(ru?.maxUnavailable, desired, true, 1);
    const oldToDelete: Pod[] = [];
    const surgeNodes: string[] = [];
    if (maxSurge === 0) {
      let numUnavailable = 0;
      const candidates: Pod[] = [];
      for (const name of wanted) {
        const found = this.findUpdatedPodsOnNode(nodeToPods.get(name) ?? [], hash, generation);
        if (!found) {
          numUnavailable++;
          continue;
        }
        const { newPod, oldPod } = found;
        if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
        else if (newPod) {
          if (!isPodAvailable(newPod, minReady, now)) numUnavailable++;
        } else if (oldPod) {
          if (!isPodAvailable(oldPod, minReady, now)) oldToDelete.push(oldPod);
          else if (numUnavailable < maxUnavailable) candidates.push(oldPod);
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidates.length);
      oldToDelete.push(...candidates.slice(0, remaining));
    } else {
      let numSurge = 0;
      const candidates: string[] = [];
      for (const name of wanted) {
        const found = this.findUpdatedPodsOnNode(nodeToPods.get(name) ?? [], hash, generation);
        if (!found) continue;
        const { newPod, oldPod } = found;
        if (!oldPod) continue;
        if (!newPod) {
          if (!isPodAvailable(oldPod, minReady, now)) surgeNodes.push(name);
          else if (numSurge < maxSurge) {
            numSurge++;
            candidates.push(name);
          }
        } else if (!isPodAvailable(newPod, minReady, now)) numSurge++;
        else oldToDelete.push(oldPod);
      }
      surgeNodes.push(...candidates);
    }
    await this.syncNodes(dsKey, ds, oldToDelete, surgeNodes, hash, generation);
    // An available-after-minReadySeconds pod moves the rollout on: look again then.
    if (minReady > 0) this.worker.addAfter(dsKey, minReady * 1000 + 500);
  }

  /** findUpdatedPodsOnNode: at most one new and one old non-terminating pod, else undefined. */
  private findUpdatedPodsOnNode(pods: Pod[], hash: string, generation: string | undefined): { newPod?: Pod; oldPod?: Pod } | undefined {
    let newPod: Pod | undefined;
    let oldPod: Pod | undefined;
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      if (isUpdated(p, hash, generation)) {
        if (newPod) return undefined;
        newPod = p;
      } else {
        if (oldPod) return undefined;
        oldPod = p;
      }
    }
    return { ...(newPod ? { newPod } : {}), ...(oldPod ? { oldPod } : {}) };
  }

  private async updateStatus(ds: DaemonSet, nodes: Node[], nodeToPods: Map<string, Pod[]>, hash: string, generation: string | undefined): Promise<void> {
    const now = this.ctx.clock.now();
    const minReady = ds.spec.minReadySeconds ?? 0;
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of nodes) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = (nodeToPods.get(node.metadata.name ?? '') ?? []).filter((p) => !p.metadata.deletionTimestamp);
      if (shouldRun) {
        desired++;
        if (pods.length > 0) {
          current++;
          const p = [...pods].sort(byCreation)[0] as Pod;
          if (isPodReady(p)) {
            ready++;
            if (isPodAvailable(p, minReady, now)) available++;
          }
          if (isUpdated(p, hash, generation)) updated++;
        }
      } else if (pods.length > 0) misscheduled++;
    }
    const status: DaemonSetStatus = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
      observedGeneration: ds.metadata.generation ?? 0,
      updatedNumberScheduled: updated,
      numberAvailable: available,
      numberUnavailable: desired - available,
    };
    if (ds.status?.collisionCount !== undefined) status.collisionCount = ds.status.collisionCount;
    if (ds.status?.conditions) status.conditions = ds.status.conditions;
    if (JSON.stringify(ds.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.ctx.client.updateStatus<DaemonSet>(R.daemonsets, ds.metadata.namespace, { ...ds, status });
    } catch (e) {
      if (isNotFound(e)) return;
      // A stale copy: the informer's next event brings this DaemonSet back with the fresh one.
      const fresh = await this.ctx.client.get<DaemonSet>(R.daemonsets, ds.metadata.namespace, ds.metadata.name ?? '');
      await this.ctx.client.updateStatus<DaemonSet>(R.daemonsets, ds.metadata.namespace, { ...fresh, status });
    }
    // Pods become available minReadySeconds after Ready: count them then.
    if (minReady > 0 && ready !== available) this.worker.addAfter(key(ds.metadata.namespace, ds.metadata.name), minReady * 1000 + 500);
  }
}

export const daemonSetDescriptor: ControllerDescriptor = {
  name: 'daemonset-controller',
  serviceAccountName: 'daemon-set-controller',
  aliases: ['daemonset'],
  enabledByDefault: true,
  create: (ctx) => new DaemonSetController(ctx),
};

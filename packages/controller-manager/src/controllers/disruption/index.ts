// disruption-controller (pkg/controller/disruption): keeps each PodDisruptionBudget's status — currentHealthy
// (ready pods not being deleted nor recently evicted), desiredHealthy and expectedPods (from minAvailable or
// maxUnavailable, percentages scaled against the replicas of the pods' controllers), disruptionsAllowed,
// observedGeneration, the disruptedPods the eviction subresource recorded (dropped once deleted or after two
// minutes) and the DisruptionAllowed condition. A failed sync sets disruptionsAllowed to 0 (fail safe). A pod
// still not terminating two minutes after it got the DisruptionTarget condition (an eviction whose delete never
// came) has that condition set back to False.
import {
  R,
  RESOURCES,
  formatTime,
  groupVersion,
  labelSelectorAsSelector,
  selectorMatches,
  setStatusCondition,
  updateDisruptionAllowedCondition,
  DISRUPTION_ALLOWED_CONDITION,
  SYNC_FAILED_REASON,
  type IntOrString,
  type KubeObject,
  type OwnerReference,
  type Pod,
  type PodDisruptionBudget,
} from '@kemu/api';
import { isConflict, isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { getControllerOf, isPodReady } from '../pods.ts';

const DISRUPTION_TARGET = 'DisruptionTarget';
/** stalePodDisruptionTimeout: a DisruptionTarget condition on a pod not yet terminating after this is cleared. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

/** DeletionTimeout: an evicted pod not deleted within this is counted again. */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) throw new Error(`invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${v}": invalid syntax`);
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

const key = (ns: string | undefined, name: string | undefined) => `${ns ?? ''}/${name ?? ''}`;

/** The pods a budget selects: a null selector none, an empty one all of the namespace (LabelSelectorAsSelector). */
export function podsForBudget(pdb: PodDisruptionBudget, pods: Pod[]): Pod[] {
  if (!pdb.spec.selector) return [];
  const sel = labelSelectorAsSelector(pdb.spec.selector);
  return pods.filter((p) => selectorMatches(sel, p.metadata.labels ?? {}));
}

export class DisruptionController implements Controller {
  readonly name = 'disruption-controller';
  private readonly pdbInformer: SharedInformer<PodDisruptionBudget>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  private readonly staleWorker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.pdbInformer = ctx.informers.informerFor<PodDisruptionBudget>(R.poddisruptionbudgets);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    // Kubernetes runs one worker for budgets.
    this.worker = new KeyedWorker(ctx, { name: 'disruption', workers: 1, sync: (k) => this.sync(k) }).waitFor(this.pdbInformer, this.podInformer);
    this.pdbInformer.addEventHandler({
      onAdd: (pdb) => this.worker.enqueue(pdb),
      onUpdate: (_o, pdb) => this.worker.enqueue(pdb),
      onDelete: (obj) => this.worker.enqueue(obj),
    });
    this.staleWorker = new KeyedWorker(ctx, { name: 'stale_pod_disruption', workers: 1, sync: (k) => this.syncStalePodDisruption(k) }).waitFor(this.podInformer);
    this.podInformer.addEventHandler({
      onAdd: (p) => {
        this.podChanged(p);
        this.staleCheck(p);
      },
      onUpdate: (old, p) => {
        this.podChanged(p);
        this.staleCheck(p);
        if (JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(p.metadata.labels ?? {})) this.podChanged(old);
      },
      onDelete: (obj) => this.podChanged(unwrapDeleted(obj)),
    });
  }

  async run(): Promise<void> {
    await Promise.all([this.worker.run(), this.staleWorker.run()]);
  }

  /**
   * nonTerminatingPodHasStaleDisruptionCondition: how long until the pod's True DisruptionTarget condition is stale,
   * or undefined when it has none to clear (terminating, terminal, or set by the kubelet).
   */
  private staleAfter(pod: Pod): number | undefined {
    if (pod.metadata.deletionTimestamp) return undefined;
    const cond = pod.status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
    if (!cond || cond.status !== 'True' || cond.reason === 'TerminationByKubelet') return undefined;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
    const since = cond.lastTransitionTime ? this.ctx.clock.now() - Date.parse(cond.lastTransitionTime) : STALE_POD_DISRUPTION_TIMEOUT_MS;
    return Math.max(0, STALE_POD_DISRUPTION_TIMEOUT_MS - since);
  }

  private staleCheck(pod: Pod): void {
    const after = this.staleAfter(pod);
    if (after !== undefined) this.staleWorker.addAfter(key(pod.metadata.namespace, pod.metadata.name), after);
  }

  /** syncStalePodDisruption: the stale condition goes back to False (reason and message stay). */
  async syncStalePodDisruption(k: string): Promise<void> {
    const pod = this.podInformer.store.get(k);
    if (!pod) return;
    const after = this.staleAfter(pod);
    if (after === undefined) return;
    if (after > 0) {
      this.staleWorker.addAfter(k, after);
      return;
    }
    const now = formatTime(this.ctx.clock.now());
    const conditions = (pod.status?.conditions ?? []).map((c) => (c.type === DISRUPTION_TARGET ? { ...c, status: 'False' as const, lastTransitionTime: now } : c));
    await this.ctx.client.updateStatus<Pod>(R.pods, pod.metadata.namespace, { ...pod, status: { ...pod.status, conditions } });
    this.ctx.logger.info({ pod: k }, 'Reset stale DisruptionTarget condition to False');
  }

  private podChanged(pod: Pod): void {
    for (const pdb of this.pdbInformer.store.byIndex('namespace', pod.metadata.namespace ?? '')) {
      try {
        if (podsForBudget(pdb, [pod]).length > 0) this.worker.enqueue(pdb);
      } catch {
        // An invalid selector selects nothing.
      }
    }
  }

  async sync(k: string): Promise<void> {
    const cached = this.pdbInformer.store.get(k);
    if (!cached) return;
    const pdb = structuredClone(cached);
    try {
      await this.trySync(pdb);
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) throw e;
      this.ctx.logger.warn({ podDisruptionBudget: k, err: String(e) }, 'Failed to sync PDB');
      await this.failSafe(pdb, e as Error);
    }
  }

  private async trySync(pdb: PodDisruptionBudget): Promise<void> {
    const pods = podsForBudget(pdb, this.podInformer.store.byIndex('namespace', pdb.metadata.namespace ?? ''));
    if (pods.length === 0) this.ctx.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    let counts: { expectedCount: number; desiredHealthy: number; unmanaged: string[] };
    try {
      counts = await this.expectedPodCount(pdb, pods);
    } catch (e) {
      this.ctx.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(e as Error).message}`);
      throw e;
    }
    if (counts.unmanaged.length > 0)
      this.ctx.recorder.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(pdb.spec.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    const now = this.ctx.clock.now();
    const { disrupted, recheckAt } = this.disruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthyPods(pods, disrupted, now);
    await this.updateStatus(pdb, currentHealthy, counts.desiredHealthy, counts.expectedCount, disrupted);
    if (recheckAt !== undefined) this.worker.addAfter(key(pdb.metadata.namespace, pdb.metadata.name), Math.max(0, recheckAt - now));
  }

  private async expectedPodCount(pdb: PodDisruptionBudget, pods: Pod[]): Promise<{ expectedCount: number; desiredHealthy: number; unmanaged: string[] }> {
    const { maxUnavailable, minAvailable } = pdb.spec;
    if (maxUnavailable !== undefined && maxUnavailable !== null) {
      const { expectedCount, unmanaged } = await this.expectedScale(pods);
      const desired = expectedCount - scaledValue(maxUnavailable, expectedCount, true);
      return { expectedCount, desiredHealthy: Math.max(0, desired), unmanaged };
    }
    if (minAvailable !== undefined && minAvailable !== null) {
      if (typeof minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: minAvailable, unmanaged: [] };
      const { expectedCount, unmanaged } = await this.expectedScale(pods);
      return { expectedCount, desiredHealthy: scaledValue(minAvailable, expectedCount, true), unmanaged };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanaged: [] };
  }

  /** SUM of the replicas of the pods' controllers; a Deployment's ReplicaSet counts as the Deployment. */
  private async expectedScale(pods: Pod[]): Promise<{ expectedCount: number; unmanaged: string[] }> {
    const scales = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = getControllerOf(pod);
      if (!ref) {
        unmanaged.push(pod.metadata.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = await this.controllerScale(ref, pod.metadata.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
      scales.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const n of scales.values()) expectedCount += n;
    return { expectedCount, unmanaged };
  }

  /** The finders: the controller named by ref (with that uid) and its spec.replicas, through a Deployment for its ReplicaSets. */
  private async controllerScale(ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>, ns: string): Promise<{ uid: string; scale: number } | undefined> {
    const r = RESOURCES.find((x) => groupVersion(x) === ref.apiVersion && x.kind === ref.kind && x.subresources.some((s) => s.name === 'scale'));
    if (!r) return undefined;
    let owner: KubeObject;
    try {
      owner = await this.ctx.client.get(r, ns, ref.name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    if (owner.metadata.uid !== ref.uid) return undefined;
    if (r === R.replicasets) {
      const dref = getControllerOf(owner);
      if (dref && dref.kind === 'Deployment' && dref.apiVersion.startsWith('apps/')) {
        const d = await this.controllerScale(dref, ns);
        if (d) return d;
      }
    }
    const replicas = (owner.spec as { replicas?: number } | undefined)?.replicas;
    return { uid: owner.metadata.uid ?? '', scale: replicas ?? 1 };
  }

  /** buildDisruptedPodMap: keeps evictions of pods that still exist, are not being deleted, and are not overdue. */
  private disruptedPodMap(pods: Pod[], pdb: PodDisruptionBudget, now: number): { disrupted: Record<string, string>; recheckAt?: number } {
    const recorded = pdb.status?.disruptedPods ?? {};
    const disrupted: Record<string, string> = {};
    let recheckAt: number | undefined;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const at = recorded[pod.metadata.name ?? ''];
      if (at === undefined) continue;
      const expected = Date.parse(at) + DELETION_TIMEOUT_MS;
      if (expected < now) {
        this.ctx.recorder.event(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata.namespace ?? ''}/${pdb.metadata.namespace ?? ''} to be deleted but it wasn't`);
      } else {
        if (recheckAt === undefined || expected < recheckAt) recheckAt = expected;
        disrupted[pod.metadata.name ?? ''] = at;
      }
    }
    return recheckAt === undefined ? { disrupted } : { disrupted, recheckAt };
  }

  private async updateStatus(pdb: PodDisruptionBudget, currentHealthy: number, desiredHealthy: number, expectedPods: number, disrupted: Record<string, string>): Promise<void> {
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const st = pdb.status;
    const next = structuredClone(pdb);
    next.status = {
      currentHealthy,
      desiredHealthy,
      expectedPods,
      disruptionsAllowed,
      ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
      observedGeneration: pdb.metadata.generation ?? 0,
      ...(st?.conditions ? { conditions: st.conditions } : {}),
    };
    updateDisruptionAllowedCondition(next, formatTime(this.ctx.clock.now()));
    const same =
      st &&
      st.currentHealthy === currentHealthy &&
      st.desiredHealthy === desiredHealthy &&
      st.expectedPods === expectedPods &&
      st.disruptionsAllowed === disruptionsAllowed &&
      JSON.stringify(st.disruptedPods ?? {}) === JSON.stringify(disrupted) &&
      st.observedGeneration === (pdb.metadata.generation ?? 0) &&
      JSON.stringify(st.conditions ?? []) === JSON.stringify(next.status.conditions ?? []);
    if (same) return;
    await this.ctx.client.updateStatus(R.poddisruptionbudgets, pdb.metadata.namespace, next);
  }

  private async failSafe(pdb: PodDisruptionBudget, err: Error): Promise<void> {
    const next = structuredClone(pdb);
    const st = next.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    st.disruptionsAllowed = 0;
    st.conditions = setStatusCondition(
      st.conditions ?? [],
      { type: DISRUPTION_ALLOWED_CONDITION, status: 'False', reason: SYNC_FAILED_REASON, message: err.message, observedGeneration: st.observedGeneration ?? 0 },
      formatTime(this.ctx.clock.now()),
    );
    next.status = st;
    // Nothing new to say: no write (the server would skip it as a no-op anyway).
    if (JSON.stringify(next.status) === JSON.stringify(pdb.status)) return;
    await this.ctx.client.updateStatus(R.poddisruptionbudgets, pdb.metadata.namespace, next);
  }
}

/** countHealthyPods: ready, not being deleted, not evicted within the deletion timeout. */
export function countHealthyPods(pods: Pod[], disrupted: Record<string, string>, now: number): number {
  let n = 0;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const at = disrupted[pod.metadata.name ?? ''];
    if (at !== undefined && Date.parse(at) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) n++;
  }
  return n;
}

export const disruptionDescriptor: ControllerDescriptor = {
  name: 'disruption-controller',
  serviceAccountName: 'disruption-controller',
  aliases: ['disruption'],
  enabledByDefault: true,
  create: (ctx) => new DisruptionController(ctx),
};

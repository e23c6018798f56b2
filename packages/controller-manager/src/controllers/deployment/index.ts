// deployment-controller: rolls Deployments out through ReplicaSets named <deployment>-<pod-template-hash>.
// Each sync claims the deployment's replica sets, then either only scales (paused, or spec.replicas changed)
// or runs the strategy (RollingUpdate, Recreate), and writes status and conditions for `kubectl rollout`.
import { R, labelSelectorAsSelector, selectorMatches, type Deployment, type ParsedSelector, type Pod, type ReplicaSet } from '@kemu/api';
import { unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { controllerRef } from '../podcontrol.ts';
import { claimCandidates, ensureControllerIndex, getControllerOf } from '../pods.ts';
import { claimObjects, recheckOwner } from '../refmanager.ts';
import { rolloutRecreate } from './recreate.ts';
import { rolloutRolling } from './rolling.ts';
import { getAllReplicaSetsAndSyncRevision, isScalingEvent, syncDeploymentStatus, syncScaling, type DeploymentDeps } from './sync.ts';
import * as u from './util.ts';

const API_VERSION = 'apps/v1';
const KIND = 'Deployment';

function deploymentSelector(d: Deployment): ParsedSelector | undefined {
  try {
    const sel = labelSelectorAsSelector(d.spec.selector);
    return sel.nothing || sel.requirements.length === 0 ? undefined : sel;
  } catch {
    return undefined;
  }
}

export class DeploymentController implements Controller {
  readonly name = 'deployment-controller';
  private readonly dInformer: SharedInformer<Deployment>;
  private readonly rsInformer: SharedInformer<ReplicaSet>;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  private readonly deps: DeploymentDeps;

  constructor(private readonly ctx: ControllerContext) {
    this.dInformer = ctx.informers.informerFor<Deployment>(R.deployments);
    this.rsInformer = ctx.informers.informerFor<ReplicaSet>(R.replicasets);
    this.podInformer = ctx.informers.informerFor<Pod>(R.pods);
    ensureControllerIndex(this.rsInformer);
    this.worker = new KeyedWorker(ctx, {
      name: this.name,
      workers: ctx.options['concurrent-deployment-syncs'],
      sync: (k) => this.sync(k),
    }).waitFor(this.dInformer, this.rsInformer, this.podInformer);
    this.deps = {
      client: ctx.client,
      recorder: ctx.recorder,
      clock: ctx.clock,
      logger: ctx.logger,
      cachedReplicaSet: (ns, name) => this.rsInformer.store.get(`${ns}/${name}`),
      enqueueAfter: (k, ms) => this.worker.addAfter(k, ms),
    };

    this.dInformer.addEventHandler({
      onAdd: (d) => this.worker.enqueue(d),
      onUpdate: (_old, d) => this.worker.enqueue(d),
      onDelete: (obj) => this.worker.enqueue(obj),
    });
    this.rsInformer.addEventHandler({
      onAdd: (rs) => this.rsChanged(undefined, rs),
      onUpdate: (old, rs) => this.rsChanged(old, rs),
      onDelete: (obj) => {
        const d = this.resolveRef(unwrapDeleted(obj));
        if (d) this.worker.enqueue(d);
      },
    });
    this.podInformer.addEventHandler({
      // Recreate waits for old pods to be gone: their deletion is what lets it continue.
      onDelete: (obj) => {
        const pod = unwrapDeleted(obj);
        const ref = getControllerOf(pod);
        if (!ref || ref.kind !== 'ReplicaSet') return;
        const rs = this.rsInformer.store.get(`${pod.metadata.namespace ?? ''}/${ref.name}`);
        if (!rs || rs.metadata.uid !== ref.uid) return;
        const d = this.resolveRef(rs);
        if (d && !u.isRollingUpdate(d)) this.worker.enqueue(d);
      },
    });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private resolveRef(rs: ReplicaSet): Deployment | undefined {
    const ref = getControllerOf(rs);
    if (!ref || ref.kind !== KIND || !ref.apiVersion.startsWith('apps/')) return undefined;
    const d = this.dInformer.store.get(`${rs.metadata.namespace ?? ''}/${ref.name}`);
    return d && d.metadata.uid === ref.uid ? d : undefined;
  }

  private deploymentsMatching(rs: ReplicaSet): Deployment[] {
    return this.dInformer.store.byIndex('namespace', rs.metadata.namespace ?? '').filter((d) => {
      const sel = deploymentSelector(d);
      return sel !== undefined && selectorMatches(sel, rs.metadata.labels);
    });
  }

  private rsChanged(old: ReplicaSet | undefined, rs: ReplicaSet): void {
    if (old && old.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    const oldRef = old ? getControllerOf(old) : undefined;
    const ref = getControllerOf(rs);
    if (old && oldRef && oldRef.uid !== ref?.uid) {
      const prev = this.resolveRef(old);
      if (prev) this.worker.enqueue(prev);
    }
    if (ref) {
      const d = this.resolveRef(rs);
      if (d) this.worker.enqueue(d);
      return;
    }
    const labelsChanged = !old || JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(rs.metadata.labels ?? {});
    if (labelsChanged || oldRef) for (const d of this.deploymentsMatching(rs)) this.worker.enqueue(d);
  }

  async sync(key: string): Promise<void> {
    const cached = this.dInformer.store.get(key);
    if (!cached) return;
    let d = structuredClone(cached);
    const selector = deploymentSelector(d);
    if (!selector) {
      this.ctx.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
        await this.ctx.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, {
          ...d,
          status: { ...(d.status ?? {}), observedGeneration: d.metadata.generation },
        });
      }
      return;
    }

    const candidates = claimCandidates(this.rsInformer.store, d);
    const rsList = (
      await claimObjects(candidates, {
        client: this.ctx.client,
        owner: d,
        ref: controllerRef(d, API_VERSION, KIND),
        selector,
        resource: R.replicasets,
        canAdopt: recheckOwner(this.ctx.client, R.deployments, d),
      })
    ).map((rs) => structuredClone(rs));

    if (d.metadata.deletionTimestamp) {
      const all = await getAllReplicaSetsAndSyncRevision(this.deps, d, rsList, false);
      return syncDeploymentStatus(this.deps, rsList, all.newRS, all.d);
    }

    d = await this.checkPausedConditions(d);
    if (d.spec.paused || isScalingEvent(d, rsList)) return syncScaling(this.deps, d, rsList);

    if (u.isRollingUpdate(d)) return rolloutRolling(this.deps, d, rsList);
    return rolloutRecreate(this.deps, d, rsList, this.podsByReplicaSet(d, rsList, selector));
  }

  /** Progressing=Unknown DeploymentPaused / DeploymentResumed as pause toggles. */
  private async checkPausedConditions(d: Deployment): Promise<Deployment> {
    if (!u.hasProgressDeadline(d)) return d;
    const cond = u.getCondition(d.status, 'Progressing');
    if (cond?.reason === u.REASONS.ProgressDeadlineExceeded) return d;
    const paused = cond?.reason === u.REASONS.DeploymentPaused;
    const now = this.ctx.clock.now();
    let next: Deployment['status'] | undefined;
    if (d.spec.paused && !paused) {
      next = structuredClone(d.status ?? {});
      u.setCondition(next, u.newCondition('Progressing', 'Unknown', u.REASONS.DeploymentPaused, 'Deployment is paused', now));
    } else if (!d.spec.paused && paused) {
      next = structuredClone(d.status ?? {});
      u.setCondition(next, u.newCondition('Progressing', 'Unknown', u.REASONS.DeploymentResumed, 'Deployment is resumed', now));
    }
    if (!next) return d;
    return this.ctx.client.updateStatus<Deployment>(R.deployments, d.metadata.namespace, { ...d, status: next });
  }

  private podsByReplicaSet(d: Deployment, rsList: ReplicaSet[], selector: ParsedSelector): Map<string, Pod[]> {
    const map = new Map<string, Pod[]>();
    for (const rs of rsList) map.set(rs.metadata.uid ?? '', []);
    for (const p of this.podInformer.store.byIndex('namespace', d.metadata.namespace ?? '')) {
      if (!selectorMatches(selector, p.metadata.labels)) continue;
      const ref = getControllerOf(p);
      const list = ref ? map.get(ref.uid) : undefined;
      if (list) list.push(p);
    }
    return map;
  }
}

export const deploymentDescriptor: ControllerDescriptor = {
  name: 'deployment-controller',
  serviceAccountName: 'deployment-controller',
  aliases: ['deployment'],
  enabledByDefault: true,
  create: (ctx) => new DeploymentController(ctx),
};

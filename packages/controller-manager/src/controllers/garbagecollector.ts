import { isConflict, isNotFound, unwrapDeleted } from '@kemu/client';
// garbage-collector-controller: deletes objects whose owners are gone, and carries out the two non-default
// propagation policies. It watches every listable kind in the resource table (events aside) and keeps an
// ownership graph (graph.ts). Nothing is deleted on the graph's word alone: the dependent and every owner the
// graph cannot vouch for are re-read with a live GET, owners are matched by uid, and deletes carry a uid
// precondition, as Kubernetes does.
//   background: dependents of a vanished owner are deleted.
//   foreground: an owner with deletionTimestamp and the foregroundDeletion finalizer has its dependents
//     deleted; once no dependent with blockOwnerDeletion=true is left, the finalizer is removed.
//   orphan: an owner with the orphan finalizer has its reference removed from every dependent, then the
//     finalizer.
import { RESOURCES, findResourceByKind, type KubeObject, type OwnerReference, type ResourceInfo } from '@kemu/api';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { FOREGROUND_FINALIZER, Graph, ORPHAN_FINALIZER, type GraphNode } from './graph.ts';

/** Kinds the collector does not track (Kubernetes ignores events too: they are many and never owners). */
function tracked(r: ResourceInfo): boolean {
  return r.verbs.includes('list') && r.verbs.includes('watch') && r.kind !== 'Event';
}

type OwnerState = 'solid' | 'dangling' | 'waiting';

export class GarbageCollector implements Controller {
  readonly name = 'garbage-collector-controller';
  readonly graph = new Graph();
  private readonly deleter: KeyedWorker;
  private readonly orphaner: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    const workers = ctx.options['concurrent-gc-syncs'];
    this.deleter = new KeyedWorker(ctx, { name: 'garbage_collector_attempt_to_delete', workers, sync: (uid) => this.attemptToDelete(uid) });
    this.orphaner = new KeyedWorker(ctx, { name: 'garbage_collector_attempt_to_orphan', workers, sync: (uid) => this.attemptToOrphan(uid) });
    for (const r of RESOURCES.filter(tracked)) {
      const inf = ctx.informers.informerFor<KubeObject>(r);
      this.deleter.waitFor(inf);
      this.orphaner.waitFor(inf);
      inf.addEventHandler({
        onAdd: (o) => this.observed(o, r),
        onUpdate: (_old, o) => this.observed(o, r),
        onDelete: (o) => this.deleted(unwrapDeleted(o)),
      });
    }
  }

  async run(): Promise<void> {
    await Promise.all([this.deleter.run(), this.orphaner.run()]);
  }

  private observed(obj: KubeObject, r: ResourceInfo): void {
    const change = this.graph.observe(obj, r);
    if (!change) return;
    const { node } = change;
    if (node.deletingDependents) {
      for (const d of this.graph.dependents(node.uid)) this.deleter.add(d.uid);
      this.deleter.add(node.uid);
    }
    if (node.orphaning) this.orphaner.add(node.uid);
    for (const ref of node.owners) {
      const owner = this.graph.get(ref.uid);
      // An owner we have not seen (maybe gone), or one being deleted: check this dependent.
      if (!owner || owner.beingDeleted) this.deleter.add(node.uid);
      if (owner?.deletingDependents) this.deleter.add(owner.uid);
    }
    for (const ref of change.removedOwners) {
      if (this.graph.get(ref.uid)?.deletingDependents) this.deleter.add(ref.uid);
    }
  }

  private deleted(obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const node = this.graph.remove(uid);
    for (const d of this.graph.dependents(uid)) this.deleter.add(d.uid);
    for (const ref of node?.owners ?? []) {
      if (this.graph.get(ref.uid)?.deletingDependents) this.deleter.add(ref.uid);
    }
  }

  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (node.deletingDependents) return this.processDeletingDependents(node);
    if (node.beingDeleted || node.owners.length === 0) return;

    // Fast path, no request needed: every owner is in the graph and alive (it is keyed by uid), or of a kind
    // we cannot look up (never deleted on a guess).
    const needsCheck = (r: OwnerReference) => {
      const owner = this.graph.get(r.uid);
      if (owner) return owner.beingDeleted;
      return findResourceByKind(r.apiVersion, r.kind) !== undefined;
    };
    if (!node.owners.some(needsCheck)) return;

    let latest: KubeObject;
    try {
      latest = await this.ctx.client.get(node.resource, node.namespace, node.name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (latest.metadata.uid !== uid || latest.metadata.deletionTimestamp) return;
    const refs = latest.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;

    const states = await Promise.all(refs.map((r) => this.ownerState(r, node)));
    const solid = refs.filter((_, i) => states[i] === 'solid');
    const waiting = refs.filter((_, i) => states[i] === 'waiting');
    const dangling = refs.filter((_, i) => states[i] === 'dangling');

    if (solid.length > 0) {
      if (dangling.length + waiting.length === 0) return;
      // Some owner still exists: only drop the references to owners that are gone or deleting us.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.patchOwners(node, latest, refs.filter((r) => !drop.has(r.uid)));
      return;
    }
    let policy: 'Foreground' | 'Background' | 'Orphan';
    const finalizers = latest.metadata.finalizers ?? [];
    if (waiting.length > 0 && this.graph.dependents(uid).length > 0) policy = 'Foreground';
    else if (finalizers.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (finalizers.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    this.ctx.logger.debug({ object: `${node.resource.plural}/${node.namespace ?? ''}/${node.name}`, policy }, 'deleting object whose owners are gone');
    try {
      await this.ctx.client.delete(node.resource, node.namespace, node.name, { propagationPolicy: policy, preconditions: { uid } });
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  }

  private async ownerState(ref: OwnerReference, dependent: GraphNode): Promise<OwnerState> {
    const known = this.graph.get(ref.uid);
    if (known && !known.beingDeleted) return 'solid';
    const r = findResourceByKind(ref.apiVersion, ref.kind);
    // A kind we cannot look up: never delete on a guess.
    if (!r) return 'solid';
    // Namespaced dependents have owners in their own namespace; cluster-scoped ones cannot have namespaced owners.
    if (r.namespaced && !dependent.namespace) return 'dangling';
    try {
      const owner = await this.ctx.client.get(r, r.namespaced ? dependent.namespace : undefined, ref.name);
      if (owner.metadata.uid !== ref.uid) return 'dangling';
      if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)) return 'waiting';
      return 'solid';
    } catch (e) {
      if (isNotFound(e)) return 'dangling';
      throw e;
    }
  }

  private async processDeletingDependents(node: GraphNode): Promise<void> {
    const blocking = this.graph.blockingDependents(node.uid);
    if (blocking.length === 0) {
      await this.removeFinalizer(node, FOREGROUND_FINALIZER);
      return;
    }
    for (const d of blocking) if (!d.beingDeleted || d.deletingDependents) this.deleter.add(d.uid);
  }

  private async attemptToOrphan(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node || !node.orphaning) return;
    for (const d of this.graph.dependents(uid)) {
      for (let attempt = 0; ; attempt++) {
        try {
          const cur = await this.ctx.client.get(d.resource, d.namespace, d.name);
          if (cur.metadata.uid !== d.uid) break;
          const refs = cur.metadata.ownerReferences ?? [];
          if (!refs.some((r) => r.uid === uid)) break;
          await this.patchOwners(d, cur, refs.filter((r) => r.uid !== uid));
          break;
        } catch (e) {
          if (isNotFound(e)) break;
          if (isConflict(e) && attempt < 5) continue;
          throw e;
        }
      }
    }
    await this.removeFinalizer(node, ORPHAN_FINALIZER);
  }

  private async patchOwners(node: GraphNode, latest: KubeObject, refs: OwnerReference[]): Promise<void> {
    await this.ctx.client.patch(
      node.resource,
      node.namespace,
      node.name,
      { metadata: { uid: latest.metadata.uid, resourceVersion: latest.metadata.resourceVersion, ownerReferences: refs.length > 0 ? refs : null } },
      'merge',
    );
  }

  private async removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const cur = await this.ctx.client.get(node.resource, node.namespace, node.name);
        if (cur.metadata.uid !== node.uid) return;
        const finalizers = cur.metadata.finalizers ?? [];
        if (!finalizers.includes(finalizer)) return;
        const next = structuredClone(cur);
        next.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
        await this.ctx.client.update(node.resource, node.namespace, next);
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (isConflict(e) && attempt < 5) continue;
        throw e;
      }
    }
  }
}

export const garbageCollectorDescriptor: ControllerDescriptor = {
  name: 'garbage-collector-controller',
  serviceAccountName: 'generic-garbage-collector',
  aliases: ['garbagecollector'],
  enabledByDefault: true,
  create: (ctx) => {
    if (!ctx.options['enable-garbage-collector']) {
      return { name: 'garbage-collector-controller', run: async () => undefined };
    }
    return new GarbageCollector(ctx);
  },
};

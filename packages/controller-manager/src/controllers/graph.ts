// The garbage collector's view of ownership (Kubernetes' GC dependency graph): one node per observed object,
// keyed by uid, with its ownerReferences and the set of its dependents. Owners that were never observed still
// get an entry in the dependents index, so their dependents can be found when the owner turns out to be gone.
import type { KubeObject, OwnerReference, ResourceInfo } from '@kemu/api';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

export interface GraphNode {
  uid: string;
  resource: ResourceInfo;
  namespace?: string;
  name: string;
  owners: OwnerReference[];
  beingDeleted: boolean;
  /** Has deletionTimestamp and the foregroundDeletion finalizer: waiting for its blocking dependents. */
  deletingDependents: boolean;
  orphaning: boolean;
}

/** What an observed change means for the collector. */
export interface GraphChange {
  node: GraphNode;
  /** Owners this object gained or lost since the last observation. */
  addedOwners: OwnerReference[];
  removedOwners: OwnerReference[];
  /** Transitions into foreground deletion / orphaning. */
  startedDeletingDependents: boolean;
  startedOrphaning: boolean;
}

export class Graph {
  private readonly nodes = new Map<string, GraphNode>();
  /** owner uid → dependent uids (owners may be unobserved). */
  private readonly dependentsOf = new Map<string, Set<string>>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  size(): number {
    return this.nodes.size;
  }

  dependents(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.dependentsOf.get(uid) ?? []) {
      const n = this.nodes.get(d);
      if (n) out.push(n);
    }
    return out;
  }

  /** Dependents whose reference to uid blocks the owner's foreground deletion. */
  blockingDependents(uid: string): GraphNode[] {
    return this.dependents(uid).filter((n) => n.owners.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
  }

  observe(obj: KubeObject, resource: ResourceInfo): GraphChange | undefined {
    const uid = obj.metadata.uid;
    if (!uid) return undefined;
    const prev = this.nodes.get(uid);
    const finalizers = obj.metadata.finalizers ?? [];
    const beingDeleted = !!obj.metadata.deletionTimestamp;
    const node: GraphNode = {
      uid,
      resource,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name ?? '',
      owners: (obj.metadata.ownerReferences ?? []).map((r) => ({ ...r })),
      beingDeleted,
      deletingDependents: beingDeleted && finalizers.includes(FOREGROUND_FINALIZER),
      orphaning: beingDeleted && finalizers.includes(ORPHAN_FINALIZER),
    };
    const before = new Map((prev?.owners ?? []).map((r) => [r.uid, r]));
    const after = new Map(node.owners.map((r) => [r.uid, r]));
    const addedOwners = node.owners.filter((r) => !before.has(r.uid));
    const removedOwners = (prev?.owners ?? []).filter((r) => !after.has(r.uid));
    for (const r of removedOwners) this.unlink(r.uid, uid);
    for (const r of node.owners) this.link(r.uid, uid);
    this.nodes.set(uid, node);
    return {
      node,
      addedOwners,
      removedOwners,
      startedDeletingDependents: node.deletingDependents && !prev?.deletingDependents,
      startedOrphaning: node.orphaning && !prev?.orphaning,
    };
  }

  /** Removes an object that was deleted; returns its last node (if known). */
  remove(uid: string): GraphNode | undefined {
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    for (const r of node.owners) this.unlink(r.uid, uid);
    this.nodes.delete(uid);
    return node;
  }

  private link(owner: string, dependent: string): void {
    let set = this.dependentsOf.get(owner);
    if (!set) {
      set = new Set();
      this.dependentsOf.set(owner, set);
    }
    set.add(dependent);
  }

  private unlink(owner: string, dependent: string): void {
    const set = this.dependentsOf.get(owner);
    if (!set) return;
    set.delete(dependent);
    if (set.size === 0) this.dependentsOf.delete(owner);
  }
}

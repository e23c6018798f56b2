// The scheduler's view of the cluster: nodes with the pods on them, including pods it has assumed (decided
// but not yet seen bound). Assuming before binding is what stops two cycles from booking the same room;
// the informer's add/update confirms an assumed pod, a failed bind forgets it.
import type { Node, Pod } from '@kemu/api';
import type { OwnedTerm, Snapshot } from '../framework/interface.ts';
import { NodeInfo } from '../framework/node-info.ts';
import { PodInfo } from '../framework/pod-info.ts';

interface PodState {
  info: PodInfo;
  node: string;
  assumed: boolean;
  bindingFinished: boolean;
  /** When an assumed pod whose binding finished expires if never confirmed (0 = never). */
  deadline: number;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}

export class SchedulerCache implements Snapshot {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly pods = new Map<string, PodState>();
  private readonly imageNodes = new Map<string, number>();
  /** ns\0key\0value → pods with that label (label index for affinity and spreading). */
  private readonly byLabel = new Map<string, Set<PodInfo>>();
  /** key\0value → required anti-affinity terms whose selector requires that label. */
  private readonly antiByLabel = new Map<string, Set<OwnedTerm>>();
  private readonly antiUnindexed = new Set<OwnedTerm>();
  private readonly ownedTerms = new Map<PodInfo, OwnedTerm[]>();
  private list: NodeInfo[] | undefined;
  private affinityList: NodeInfo[] | undefined;
  private antiAffinityList: NodeInfo[] | undefined;
  private scoringList: NodeInfo[] | undefined;
  private nodeGen = 0;

  constructor(private readonly ttlMs = 0) {}

  // --- Snapshot ---
  nodeInfos(): readonly NodeInfo[] {
    if (!this.list) this.list = [...this.nodes.values()].filter((n) => n.node !== undefined);
    return this.list;
  }
  get(name: string): NodeInfo | undefined {
    const n = this.nodes.get(name);
    return n?.node ? n : undefined;
  }
  havePodsWithAffinity(): readonly NodeInfo[] {
    if (!this.affinityList) this.affinityList = this.nodeInfos().filter((n) => n.podsWithAffinity.length > 0);
    return this.affinityList;
  }
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] {
    if (!this.antiAffinityList) this.antiAffinityList = this.nodeInfos().filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
    return this.antiAffinityList;
  }
  havePodsWithScoringTerms(): readonly NodeInfo[] {
    if (!this.scoringList) this.scoringList = this.nodeInfos().filter((n) => n.podsWithScoringTerms.length > 0);
    return this.scoringList;
  }
  nodeGeneration(): number {
    return this.nodeGen;
  }
  imageNumNodes(image: string): number {
    return this.imageNodes.get(image) ?? 0;
  }
  podsWithLabel(namespace: string, key: string, value: string): ReadonlySet<PodInfo> {
    return this.byLabel.get(`${namespace}\u0000${key}\u0000${value}`) ?? EMPTY_PODS;
  }
  antiAffinityTermsRequiringLabel(key: string, value: string): ReadonlySet<OwnedTerm> {
    return this.antiByLabel.get(`${key}\u0000${value}`) ?? EMPTY_TERMS;
  }
  unindexedAntiAffinityTerms(): ReadonlySet<OwnedTerm> {
    return this.antiUnindexed;
  }

  private index(info: PodInfo, add: boolean): void {
    for (const k in info.labels ?? {}) {
      const key = `${info.namespace}\u0000${k}\u0000${(info.labels as Record<string, string>)[k]}`;
      let set = this.byLabel.get(key);
      if (add) {
        if (!set) this.byLabel.set(key, (set = new Set()));
        set.add(info);
      } else if (set) {
        set.delete(info);
        if (set.size === 0) this.byLabel.delete(key);
      }
    }
    if (info.requiredAntiAffinity.length === 0) return;
    if (add) {
      const owned = info.requiredAntiAffinity.map((term) => ({ term, owner: info }));
      this.ownedTerms.set(info, owned);
      for (const ot of owned) {
        const ik = ot.term.selector.indexKey;
        if (!ik) this.antiUnindexed.add(ot);
        else {
          const key = `${ik[0]}\u0000${ik[1]}`;
          let set = this.antiByLabel.get(key);
          if (!set) this.antiByLabel.set(key, (set = new Set()));
          set.add(ot);
        }
      }
    } else {
      for (const ot of this.ownedTerms.get(info) ?? []) {
        this.antiUnindexed.delete(ot);
        const ik = ot.term.selector.indexKey;
        if (!ik) continue;
        const key = `${ik[0]}\u0000${ik[1]}`;
        const set = this.antiByLabel.get(key);
        set?.delete(ot);
        if (set?.size === 0) this.antiByLabel.delete(key);
      }
      this.ownedTerms.delete(info);
    }
  }

  private invalidate(affinityChanged: boolean, info?: PodInfo): void {
    if (!affinityChanged) return;
    this.affinityList = undefined;
    // A pod's own terms decide which derived lists it can change.
    if (!info || info.requiredAntiAffinity.length) this.antiAffinityList = undefined;
    if (!info || info.hasScoringTerms) this.scoringList = undefined;
  }

  // --- nodes ---
  addNode(node: Node): void {
    const name = node.metadata.name ?? '';
    let ni = this.nodes.get(name);
    const existed = ni?.node !== undefined;
    // Heartbeats do not change labels; only label changes (and adds/removes) invalidate per-node caches.
    if (!existed || !sameLabels(ni?.labels, node.metadata.labels)) this.nodeGen++;
    if (ni?.node) this.countImages(ni, -1);
    if (!ni) {
      ni = new NodeInfo(undefined, name);
      this.nodes.set(name, ni);
    }
    ni.setNode(node);
    this.countImages(ni, 1);
    if (!existed) {
      this.list = undefined;
      this.invalidate(true);
    }
  }
  updateNode(node: Node): void {
    this.addNode(node);
  }
  removeNode(name: string): void {
    const ni = this.nodes.get(name);
    if (!ni) return;
    if (ni.node) this.countImages(ni, -1);
    this.nodeGen++;
    // Pods still on a deleted node stay accounted until their own deletes arrive.
    if (ni.pods.length === 0) this.nodes.delete(name);
    else ni.node = undefined;
    this.list = undefined;
    this.invalidate(true);
  }
  private countImages(ni: NodeInfo, delta: number): void {
    for (const img of ni.imageSizes.keys()) {
      const n = (this.imageNodes.get(img) ?? 0) + delta;
      if (n <= 0) this.imageNodes.delete(img);
      else this.imageNodes.set(img, n);
    }
  }
  nodeCount(): number {
    return this.nodeInfos().length;
  }

  // --- pods ---
  private place(info: PodInfo, nodeName: string): void {
    let ni = this.nodes.get(nodeName);
    if (!ni) {
      // A pod bound to a node the cache has not seen yet: keep a placeholder so accounting is right.
      ni = new NodeInfo(undefined, nodeName);
      this.nodes.set(nodeName, ni);
    }
    ni.addPod(info);
    this.index(info, true);
    if (info.hasAffinity) this.invalidate(true, info);
  }
  private unplace(key: string, nodeName: string, info: PodInfo): void {
    const ni = this.nodes.get(nodeName);
    if (!ni) return;
    ni.removePod(key);
    this.index(info, false);
    if (!ni.node && ni.pods.length === 0) this.nodes.delete(nodeName);
    if (info.hasAffinity) this.invalidate(true, info);
  }

  isAssumed(key: string): boolean {
    return this.pods.get(key)?.assumed === true;
  }
  /** Is the pod (assumed or bound) in the cache? */
  has(key: string): boolean {
    return this.pods.has(key);
  }

  /** Places a pod on the node the scheduler chose, before the bind completes. */
  assumePod(info: PodInfo, nodeName: string): void {
    if (this.pods.has(info.key)) throw new Error(`pod ${info.key} is in the cache, so can't be assumed`);
    this.place(info, nodeName);
    this.pods.set(info.key, { info, node: nodeName, assumed: true, bindingFinished: false, deadline: 0 });
  }
  finishBinding(key: string, now: number): void {
    const s = this.pods.get(key);
    if (!s?.assumed) return;
    s.bindingFinished = true;
    s.deadline = this.ttlMs > 0 ? now + this.ttlMs : 0;
  }
  /** Undo an assumption (bind failed). */
  forgetPod(key: string): void {
    const s = this.pods.get(key);
    if (!s?.assumed) return;
    this.unplace(key, s.node, s.info);
    this.pods.delete(key);
  }

  /** An assigned pod from the informer (add or update): confirms an assumed pod, or moves it. */
  addOrUpdatePod(pod: Pod): void {
    const nodeName = pod.spec.nodeName;
    if (!nodeName) return;
    const key = podKey(pod);
    const s = this.pods.get(key);
    const info = new PodInfo(pod);
    if (s) this.unplace(key, s.node, s.info);
    this.place(info, nodeName);
    this.pods.set(key, { info, node: nodeName, assumed: false, bindingFinished: true, deadline: 0 });
  }
  removePod(key: string): void {
    const s = this.pods.get(key);
    if (!s) return;
    this.unplace(key, s.node, s.info);
    this.pods.delete(key);
  }

  /** Drops assumed pods whose binding finished long ago but were never confirmed. */
  cleanupExpiredAssumedPods(now: number): string[] {
    const out: string[] = [];
    for (const [key, s] of this.pods)
      if (s.assumed && s.bindingFinished && s.deadline > 0 && now > s.deadline) {
        this.unplace(key, s.node, s.info);
        this.pods.delete(key);
        out.push(key);
      }
    return out;
  }

  podCount(): number {
    return this.pods.size;
  }
  nodeOf(key: string): string | undefined {
    return this.pods.get(key)?.node;
  }
}

const EMPTY_PODS: ReadonlySet<PodInfo> = new Set();
const EMPTY_TERMS: ReadonlySet<OwnedTerm> = new Set();

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  for (const k of ka) if ((a as Record<string, string>)[k] !== b?.[k]) return false;
  return true;
}

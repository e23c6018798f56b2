// The scheduling framework's extension points: one small interface per point, each a method a plugin may
// implement. Filter/Score run synchronously in the per-node hot loop; binding points are async.
import type { Logger } from '@kemu/base';
import type { Clock } from '@kemu/base';
import type { Pod } from '@kemu/api';
import type { CycleState } from './cycle-state.ts';
import type { NodeInfo } from './node-info.ts';
import type { NamespaceLabels, PodInfo } from './pod-info.ts';
import type { MaybeStatus, Status } from './status.ts';

export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;

export interface Plugin {
  readonly name: string;
}

/** A pod waiting in the scheduling queue. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was (last) added to the queue, for QueueSort. */
  timestamp: number;
  /** When the pod was first added to the queue (e2e latency). */
  initialAttemptTimestamp: number;
  attempts: number;
  /** Plugins that rejected the pod in its last cycle. */
  unschedulablePlugins: Set<string>;
}

export interface QueueSortPlugin extends Plugin {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** PreFilter may narrow the nodes to evaluate (e.g. NodeAffinity with matchFields metadata.name). */
export class PreFilterResult {
  constructor(readonly nodeNames: ReadonlySet<string>) {}
}

export interface PreFilterExtensions {
  /** Updates the plugin's cycle state as if podToAdd were on nodeInfo (preemption, nominated pods). */
  addPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  removePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): PreFilterResult | MaybeStatus;
  preFilterExtensions?(): PreFilterExtensions | undefined;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

export interface PostFilterResult {
  nominatedNodeName?: string;
}

export interface PostFilterPlugin extends Plugin {
  postFilter(
    state: CycleState,
    pod: PodInfo,
    filteredNodeStatus: ReadonlyMap<string, Status>,
  ): Promise<{ result?: PostFilterResult; status: MaybeStatus }>;
}

export interface PreScorePlugin extends Plugin {
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus;
}

export interface ScorePlugin extends Plugin {
  /** A score in [0, 100] (before normalization plugins may use any range). */
  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number;
  /** Rescales scores (aligned with nodes) into [0, 100] in place. */
  normalizeScore?(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], scores: number[]): MaybeStatus;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus;
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

export interface PermitPlugin extends Plugin {
  /** Success or a rejection; Wait is not supported by this runner and is treated as an error. */
  permit(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus;
}

export interface PreBindPlugin extends Plugin {
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus>;
}

export interface BindPlugin extends Plugin {
  /** Skip hands the pod to the next bind plugin. */
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus>;
}

export interface PostBindPlugin extends Plugin {
  postBind(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/** The cluster as the scheduler sees it for one cycle. */
export interface Snapshot {
  nodeInfos(): readonly NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
  havePodsWithAffinity(): readonly NodeInfo[];
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[];
  /** Nodes with pods whose affinity terms affect how other pods score. */
  havePodsWithScoringTerms(): readonly NodeInfo[];
  /** Bumped whenever a node is added, changed or removed. */
  nodeGeneration(): number;
  /** How many nodes report this (normalized) image. */
  imageNumNodes(image: string): number;
  /** Pods (assigned or assumed) in this namespace carrying label key=value. */
  podsWithLabel(namespace: string, key: string, value: string): ReadonlySet<PodInfo>;
  /** Required anti-affinity terms of existing pods whose selector requires label key=value. */
  antiAffinityTermsRequiringLabel(key: string, value: string): ReadonlySet<OwnedTerm>;
  /** Required anti-affinity terms of existing pods that cannot be indexed by a label. */
  unindexedAntiAffinityTerms(): ReadonlySet<OwnedTerm>;
}

/** An affinity term with the pod that declares it. */
export interface OwnedTerm {
  term: import('./pod-info.ts').AffinityTerm;
  owner: PodInfo;
}

/** The API calls plugins make (binding, preemption). */
export interface SchedulerClient {
  bind(namespace: string, name: string, uid: string, nodeName: string): Promise<void>;
  deletePod(namespace: string, name: string, uid: string): Promise<void>;
  patchPodStatus(pod: Pod, status: Record<string, unknown>): Promise<void>;
}

/** Workload objects whose selectors define default spreading (services, replicasets, statefulsets, RCs). */
export interface SelectorLister {
  /** The label maps / selectors of objects in this namespace selecting the pod. */
  selectorsFor(pod: Pod): import('@kemu/api').LabelSelector[];
}

/** The storage objects VolumeBinding reads (informer caches) and the writes it makes before binding. */
export interface VolumeLister {
  claim(namespace: string, name: string): import('@kemu/api').PersistentVolumeClaim | undefined;
  volume(name: string): import('@kemu/api').PersistentVolume | undefined;
  volumes(): readonly import('@kemu/api').PersistentVolume[];
  storageClass(name: string): import('@kemu/api').StorageClass | undefined;
  /** The node's CSINode (per-driver attach limits, NodeVolumeLimits); absent: limits come from the Node alone. */
  csiNode?(nodeName: string): import('@kemu/api').CSINode | undefined;
  /** Sets volume.kubernetes.io/selected-node on a claim (dynamic provisioning under WaitForFirstConsumer). */
  selectNode(claim: import('@kemu/api').PersistentVolumeClaim, nodeName: string): Promise<void>;
  /** Pre-binds a volume to a claim (claimRef), for the binder to complete. */
  preBind(volume: import('@kemu/api').PersistentVolume, claim: import('@kemu/api').PersistentVolumeClaim): Promise<void>;
}

export interface Nominator {
  /** Pods nominated to run on this node (after preemption), excluding bound ones. */
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  /** Cheap check so the filter loop skips nominated-pod lookups in the common case. */
  hasNominatedPods(): boolean;
  addNominatedPod(pod: PodInfo, nodeName: string): void;
  deleteNominatedPod(pod: PodInfo): void;
}

/** Framework services available to plugins (framework.Handle). */
export interface Handle {
  snapshot(): Snapshot;
  client: SchedulerClient | undefined;
  clock: Clock;
  logger: Logger;
  nominator: Nominator | undefined;
  selectorLister: SelectorLister | undefined;
  /** Storage objects for VolumeBinding; undefined: pods with claims are scheduled as if they had none. */
  volumeLister?: VolumeLister | undefined;
  namespaceLabels: NamespaceLabels | undefined;
  /** Runs the profile's PreFilter extensions + Filter plugins (preemption dry runs). */
  runFilterPlugins(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  runPreFilterExtensionAddPod(state: CycleState, pod: PodInfo, toAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  runPreFilterExtensionRemovePod(state: CycleState, pod: PodInfo, toRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
  /** Records an event on an object (Preempted, …). */
  event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export type PluginFactory = (args: unknown, handle: Handle) => Plugin;

// One emulated node: registers (and re-registers) its Node, sends heartbeats, admits the pods bound to it and
// runs a PodWorker per admitted pod. Everything it holds is small: the node's identity, its image set, the
// IP allocator and one worker per pod, so a process can host a thousand of them.
import { randomBytes, randomUUID } from 'node:crypto';
import { R, type Condition, type Node, type NodeStatus, type Pod } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { KubeApi } from '../api.ts';
import { Message, Reason, conditionEvent, nodeRefObject, type EventSink } from '../events.ts';
import type { TimerQueue } from '../timers.ts';
import { admitPod, parseAllocatable, podRequests, type Allocatable, type PodRequests } from '../pods/admission.ts';
import { PodIPAllocator } from '../pods/ipam.ts';
import type { LifecycleEnv } from '../pods/lifecycle.ts';
import type { ImageCatalog } from '../images/catalog.ts';
import { pullFailure } from '../images/registry.ts';
import { PodWorker, type WorkerHost } from '../pods/worker.ts';
import { ServiceAccountTokens } from '../pods/tokens.ts';
import { Heartbeat, type HeartbeatOptions } from './heartbeat.ts';
import { registerNode } from './registration.ts';
import { buildNode, buildNodeStatus, conditionMemo, imageSize, memoStatus, type ConditionMemo, type NodeConfig, type NodeIdentity } from './status.ts';

export interface AgentDeps {
  client: KubeApi;
  timers: TimerQueue;
  clock: Clock;
  logger: Logger;
  config: NodeConfig;
  heartbeat: Omit<HeartbeatOptions, 'phase'>;
  imagePullMs: number;
  /** --container-log-max-size in bytes. */
  containerLogMaxBytes?: number;
  preloadedImages: readonly string[];
  /** Repositories and tags that exist (pulls of others in a listed repository fail); absent: every pull succeeds. */
  imageCatalog?: ImageCatalog;
  imageBackOff?: { initialMs: number; maxMs: number };
  registerNode: boolean;
  /** The event recorder for one node (source kubelet, host = the node's name); none: no events. */
  recorder?: (nodeName: string, index: number) => EventSink;
  /** Bounds how many nodes register at once (a thousand at once would open a thousand connections). */
  registrations: Semaphore;
  /** Real time and the cluster network, for containers whose command talks to the network (LifecycleEnv.live). */
  live?: LifecycleEnv['live'];
}

export class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export class NodeAgent {
  /** What the kubelet keeps of its Node: not the object, only what it needs. */
  private node: { uid: string; conditions: ConditionMemo } | undefined;
  private readonly bootID = randomUUID();
  private readonly images: Set<string>;
  private imagesVersion = 0;
  private readonly ipam: PodIPAllocator;
  private readonly workers = new Map<string, PodWorker>();
  private readonly admitted = new Map<string, PodRequests>();
  private readonly allocatable: Allocatable;
  private readonly heartbeat: Heartbeat;
  private readonly host: WorkerHost;
  /** Projected ServiceAccount tokens of this node's pods (TokenRequest through the node's own identity). */
  readonly tokens: ServiceAccountTokens;
  private registering = false;
  /** Pods seen before the Node is registered: started once it is (so they get IPs from its podCIDR). */
  private readonly pending = new Map<string, Pod>();
  private stopped = false;
  private readonly events: EventSink | undefined;
  /** Counts changes of the Node's condition statuses seen from the API; events were recorded against `eventsGen`. */
  private conditionsGen = 0;
  private eventsGen = -1;
  /** When the Node was registered, and when it was last re-read for a podCIDR (see onPod). */
  private registeredAt = 0;
  private cidrCheckedAt = -Infinity;
  private cidrChecking = false;
  /** The Node's spec.unschedulable last seen; false at start, as the kubelet's lastNodeUnschedulable (so a
   *  node that registers cordoned reports NodeNotSchedulable once, an uncordoned one reports nothing). */
  private lastUnschedulable = false;

  constructor(
    readonly id: NodeIdentity,
    private readonly deps: AgentDeps,
    phase: number,
  ) {
    this.images = new Set(deps.preloadedImages);
    this.ipam = new PodIPAllocator(id.fallbackPodCIDR);
    this.allocatable = parseAllocatable(deps.config.capacity);
    this.events = deps.recorder?.(id.name, id.index);
    this.heartbeat = new Heartbeat(deps.client, deps.timers, deps.clock, deps.logger, {
      name: id.name,
      nodeUID: () => this.node?.uid,
      status: (now) => this.status(now),
      version: () => this.imagesVersion,
    }, { ...deps.heartbeat, phase });
    const env: LifecycleEnv = {
      imagePullMs: deps.imagePullMs,
      ...(deps.containerLogMaxBytes !== undefined ? { containerLogMaxBytes: deps.containerLogMaxBytes } : {}),
      hasImage: (image) => this.images.has(image),
      imagePulled: (image) => {
        if (image && !this.images.has(image)) {
          this.images.add(image);
          this.imagesVersion++;
        }
      },
      imageSize,
      ...(deps.imageCatalog ? { pullFailure: pullFailure.bind(undefined, deps.imageCatalog) } : {}),
      ...(deps.imageBackOff ? { imageBackOff: deps.imageBackOff } : {}),
      newContainerID: () => `kemu://${randomBytes(32).toString('hex')}`,
      ...(deps.live ? { live: deps.live } : {}),
    };
    this.tokens = new ServiceAccountTokens({ client: deps.client, timers: deps.timers, clock: deps.clock, logger: deps.logger });
    this.host = {
      client: deps.client,
      timers: deps.timers,
      clock: deps.clock,
      logger: deps.logger,
      env,
      events: this.events,
      hostIP: () => this.id.ip,
      allocateIP: (preferred) => this.ipam.allocate(preferred),
      releaseIP: (ip) => this.ipam.release(ip),
      token: (uid, volume) => this.tokens.token(uid, volume),
      released: (uid) => {
        this.admitted.delete(uid);
        this.tokens.podStopped(uid);
      },
      closed: (uid) => {
        this.workers.delete(uid);
        this.tokens.podStopped(uid);
      },
    };
  }

  get name(): string {
    return this.id.name;
  }

  /** The worker of the pod namespace/name on this node (what the kubelet's GetPodByName finds). */
  findPod(namespace: string, name: string): PodWorker | undefined {
    for (const w of this.workers.values()) {
      const m = w.current.metadata;
      if (m.name === name && (m.namespace ?? 'default') === namespace) return w;
    }
    return undefined;
  }

  podCount(): number {
    return this.workers.size;
  }

  /** The workers of the pods this node runs (their emulated containers: /stats/summary, /metrics/resource). */
  podWorkers(): PodWorker[] {
    return [...this.workers.values()];
  }

  /** The memory capacity in bytes (the node's working set is reported against it). */
  get memoryCapacityBytes(): number {
    return this.allocatable.memory;
  }

  /** The pods this node runs, as last seen (the kubelet API's /pods). */
  pods(): Pod[] {
    return [...this.workers.values()].map((w) => w.current);
  }

  heartbeats(): { renewals: number; statusPatches: number } {
    return { renewals: this.heartbeat.renewals, statusPatches: this.heartbeat.statusPatches };
  }

  start(): void {
    this.nodeEvent('Normal', Reason.Starting, Message.starting());
    this.nodeEvent('Normal', Reason.NodeAllocatableEnforced, Message.allocatableEnforced());
    if (this.deps.registerNode) void this.register();
    this.heartbeat.start();
  }

  stop(): void {
    this.stopped = true;
    this.heartbeat.stop();
    for (const uid of [...this.workers.keys()]) this.tokens.podStopped(uid);
    for (const w of [...this.workers.values()]) w.close();
  }

  /** Built only when it is posted (rarely): nothing of it is kept between posts. */
  private status(now: number): NodeStatus {
    const previous = this.node?.conditions;
    const status = buildNodeStatus(this.id, this.deps.config, this.bootID, this.images, now, previous);
    // As the kubelet's condition setters: an event for each condition whose status changed from what the
    // API holds (e.g. Ready=Unknown set by the node controller while this kubelet was away).
    if (previous && this.eventsGen !== this.conditionsGen) {
      this.eventsGen = this.conditionsGen;
      this.conditionEvents(previous, status.conditions ?? []);
    }
    return status;
  }

  private nodeEvent(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events?.event(nodeRefObject(this.id.name), type, reason, message);
  }

  private conditionEvents(previous: ConditionMemo | undefined, next: Condition[]): void {
    if (!this.events) return;
    for (const c of next) {
      if (memoStatus(previous, c.type) === memoStatus(conditionMemo([c]), c.type)) continue;
      const ev = conditionEvent(c.type, c.status);
      if (ev) this.nodeEvent('Normal', ev, Message.nodeStatus(this.id.name, ev));
    }
  }

  /** After a (re-)list of pods: workers whose pod is no longer there are closed. */
  dropPodsNotIn(present: Set<string>): void {
    for (const [uid, w] of [...this.workers]) if (!present.has(uid)) w.close();
    for (const uid of [...this.pending.keys()]) if (!present.has(uid)) this.pending.delete(uid);
  }

  private async register(): Promise<void> {
    if (this.registering) return;
    this.registering = true;
    let delay = 100;
    while (!this.stopped) {
      await this.deps.registrations.acquire();
      let ok = false;
      try {
        const node = buildNode(this.id, this.deps.config, this.bootID, this.images, this.deps.clock.now());
        const registered = await registerNode(this.deps.client, node, this.deps.logger);
        this.registeredAt = this.deps.clock.now();
        this.setNode(registered.node);
        if (registered.created) {
          // A new Node: its first conditions are reported now (an adopted one's are compared by status()).
          this.conditionEvents(undefined, node.status?.conditions ?? []);
          this.eventsGen = this.conditionsGen;
        }
        this.heartbeat.statusNow();
        ok = true;
      } catch (e) {
        this.deps.logger.warn({ node: this.id.name, err: String(e) }, 'Unable to register node with API server');
      } finally {
        this.deps.registrations.release();
      }
      if (ok) break;
      await this.deps.clock.sleep(delay);
      delay = Math.min(delay * 2, 7000);
    }
    this.registering = false;
  }

  private setNode(node: Node): void {
    const conditions = conditionMemo(node.status?.conditions);
    if (conditions.sig !== this.node?.conditions.sig) this.conditionsGen++;
    this.node = { uid: node.metadata.uid ?? '', conditions };
    const unschedulable = node.spec?.unschedulable === true;
    if (unschedulable !== this.lastUnschedulable) {
      // `kubectl cordon` / `uncordon`: as the kubelet's recordNodeSchedulableEvent, only on a change.
      this.lastUnschedulable = unschedulable;
      const ev = unschedulable ? Reason.NodeNotSchedulable : Reason.NodeSchedulable;
      this.nodeEvent('Normal', ev, Message.nodeStatus(this.id.name, ev));
    }
    const cidr = node.spec?.podCIDR;
    if (cidr && cidr !== this.ipam.cidr && this.ipam.inUse() === 0) {
      try {
        this.ipam.setCIDR(cidr);
      } catch {
        this.deps.logger.warn({ node: this.id.name, cidr }, 'Ignoring invalid spec.podCIDR');
      }
    }
    if (this.pending.size) {
      const pods = [...this.pending.values()];
      this.pending.clear();
      for (const p of pods) this.onPod(p);
    }
  }

  /** The Node as the watch sees it; undefined when it was deleted (the kubelet then registers again). */
  onNode(node: Node | undefined): void {
    if (this.stopped) return;
    if (!node) {
      if (this.node) this.deps.logger.info({ node: this.id.name }, 'Node was deleted; registering it again');
      this.node = undefined;
      if (this.deps.registerNode) void this.register();
      return;
    }
    const prevReady = memoStatus(this.node?.conditions, 'Ready');
    this.setNode(node);
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    // A controller marked the node (e.g. Ready=Unknown): report the real status at once.
    if (ready && (ready.status !== 'True' || ready.reason !== 'KubeletReady') && prevReady !== memoStatus(this.node?.conditions, 'Ready')) this.heartbeat.statusNow();
  }

  onPod(pod: Pod): void {
    if (this.stopped) return;
    // The worker holds the pod until the next update: not the server's field-ownership bookkeeping.
    if (pod.metadata.managedFields) delete pod.metadata.managedFields;
    const uid = pod.metadata.uid ?? '';
    const existing = this.workers.get(uid);
    if (existing) {
      existing.update(pod);
      return;
    }
    if ((!this.node && this.deps.registerNode) || this.cidrChecking) {
      this.pending.set(uid, pod);
      return;
    }
    const phase = pod.status?.phase;
    const known = phase === 'Running' || phase === 'Succeeded' || phase === 'Failed' || pod.status?.startTime !== undefined;
    if (!known && this.awaitingPodCIDR()) {
      // A node-ipam controller gives a new Node its podCIDR just after registration, and that update may
      // still be on its way on the Node watch: read the Node once before giving the pod a fallback IP.
      this.pending.set(uid, pod);
      void this.checkPodCIDR();
      return;
    }
    let worker: PodWorker;
    if (known || pod.metadata.deletionTimestamp) {
      // Already running here before a kubelet restart (or being deleted): no admission again.
      worker = new PodWorker(this.host, pod);
      if (phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp) this.admitted.set(uid, podRequests(pod));
    } else {
      const verdict = admitPod(pod, this.allocatable, [...this.admitted.values()]);
      if (verdict.admit) {
        this.admitted.set(uid, podRequests(pod));
        worker = new PodWorker(this.host, pod);
      } else {
        this.deps.logger.info({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, reason: verdict.reason }, 'Pod admission denied');
        this.events?.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', verdict.reason ?? 'UnexpectedAdmissionError', verdict.message ?? '');
        worker = new PodWorker(this.host, pod, { reason: verdict.reason ?? 'UnexpectedAdmissionError', message: verdict.message ?? '' });
      }
    }
    this.workers.set(uid, worker);
    // Its volumes are set up as it starts: the projected token is asked for (not for a pod that ended or was refused).
    if (this.admitted.has(uid)) this.tokens.podStarted(pod);
    worker.start();
  }

  private awaitingPodCIDR(): boolean {
    if (!this.node || this.ipam.cidr !== this.id.fallbackPodCIDR) return false;
    const now = this.deps.clock.now();
    return now - this.registeredAt < 60_000 && now - this.cidrCheckedAt > 5_000;
  }

  private async checkPodCIDR(): Promise<void> {
    this.cidrChecking = true;
    this.cidrCheckedAt = this.deps.clock.now();
    let node: Node | undefined;
    try {
      node = await this.deps.client.get<Node>(R.nodes, undefined, this.id.name);
    } catch {
      // Gone or unreachable: the watch will tell; the pods start with what is known.
    }
    this.cidrChecking = false;
    if (this.stopped) return;
    if (node && node.metadata.uid === this.node?.uid) {
      this.setNode(node);
    } else if (this.pending.size) {
      const pods = [...this.pending.values()];
      this.pending.clear();
      for (const p of pods) this.onPod(p);
    }
  }

  onPodDeleted(pod: Pod): void {
    this.pending.delete(pod.metadata.uid ?? '');
    const w = this.workers.get(pod.metadata.uid ?? '');
    if (w) w.close();
  }
}

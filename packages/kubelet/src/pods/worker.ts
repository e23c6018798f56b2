// One pod on one emulated node: drives its PodLifecycle on the shared timer, reports each change through
// pods/<name>/status (one request in flight per pod, the latest state wins), stops it gracefully when the pod
// is deleted, and finally deletes it with gracePeriodSeconds 0 and a uid precondition, as the kubelet does.
import { createHash } from 'node:crypto';
import { R, StatusError, type Condition, type Container, type Pod, type PodStatus } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { KubeApi } from '../api.ts';
import type { TimerHandle, TimerQueue } from '../timers.ts';
import { Message, Reason, containerFieldPath, type EventSink, type EventType } from '../events.ts';
import { readPullSecrets } from '../images/pull-secrets.ts';
import { PodLifecycle, type ContainerRuntime, type LifecycleEnv } from './lifecycle.ts';
import { renderStatus } from './status.ts';
import { configFailures, mountFailures } from './dependencies.ts';
import { containerMounts, type Mount } from '../volumes/contents.ts';

export interface WorkerHost {
  client: KubeApi;
  timers: TimerQueue;
  clock: Clock;
  logger: Logger;
  env: LifecycleEnv;
  /** The node's event recorder (source kubelet, host = node name). */
  events?: EventSink;
  hostIP(): string;
  /** A pod IP from the node's range; `preferred` (the pod's address before a kubelet restart) when free. */
  allocateIP(preferred?: string): string | undefined;
  releaseIP(ip: string | undefined): void;
  /** The pod no longer uses node resources (terminal or gone). */
  released(uid: string): void;
  /** The worker is done for good (the pod was deleted). */
  closed(uid: string): void;
  /** The latest ServiceAccount token of one of the pod's projected volumes. */
  token?(uid: string, volume: string): string | undefined;
}

const RETRY_MS = 1000;
/** How soon a pod waiting for a volume source or a ConfigMap/Secret looks again. */
export const DEPENDENCY_RETRY_MS = 2000;

/** A digest of a status: enough to tell whether it changed since it was posted. */
function statusHash(status: PodStatus): string {
  return createHash('sha1').update(JSON.stringify(status)).digest('base64');
}

export class PodWorker {
  private lc: PodLifecycle | undefined;
  private podIP: string | undefined;
  private timer: TimerHandle | undefined;
  /** Of the status last posted: its hash, top-level keys and conditions (not the whole object). */
  private lastSentHash = '';
  private lastSentKeys: string[] | undefined;
  private lastSentConditions: Condition[] | undefined;
  private inflight = false;
  private dirty = false;
  private deleteSent = false;
  private resourcesReleased = false;
  private done = false;
  /** The pod's imagePullSecrets are being read before its first pull; ticks wait for them. */
  private secretsLoading = false;
  private secretsRefreshing = false;
  /** Its volumes and env sources are being checked, or are missing: no container is created yet. */
  private blocked = false;
  private checking = false;
  private dependencyTimer: TimerHandle | undefined;
  /** The containers' states before CreateContainerConfigError replaced them, to go back to. */
  private readonly configHeld = new Map<ContainerRuntime, ContainerRuntime['state']>();
  readonly uid: string;

  constructor(
    private readonly host: WorkerHost,
    private pod: Pod,
    /** A fixed status (admission rejection) instead of a lifecycle. */
    private readonly rejected?: { reason: string; message: string },
  ) {
    this.uid = pod.metadata.uid ?? '';
  }

  /** The pod as last seen from the API. */
  get current(): Pod {
    return this.pod;
  }

  /** Its emulated containers (none for a rejected pod or one that had ended before this kubelet started). */
  get lifecycle(): PodLifecycle | undefined {
    return this.lc;
  }

  get name(): string {
    return `${this.pod.metadata.namespace ?? ''}/${this.pod.metadata.name ?? ''}`;
  }

  start(): void {
    const now = this.host.clock.now();
    const phase = this.pod.status?.phase;
    if (!this.rejected && phase !== 'Succeeded' && phase !== 'Failed') {
      const id = { name: this.pod.metadata.name ?? '', namespace: this.pod.metadata.namespace ?? '', uid: this.uid };
      this.lc = new PodLifecycle(id, this.pod.spec, this.pod.metadata.annotations, this.host.env, now, this.host.events ? this.recordEvent : undefined);
      if (this.pod.status?.startTime) this.lc.adopt(this.pod.status, now);
      this.podIP = this.pod.spec.hostNetwork ? this.host.hostIP() : this.host.allocateIP(this.pod.status?.podIP);
      this.lc.podIP = this.podIP;
      this.lc.wake = () => this.tick();
      // A pod none of whose containers has started yet waits for its volumes and config first.
      const started = [...(this.pod.status?.containerStatuses ?? []), ...(this.pod.status?.initContainerStatuses ?? [])].some(
        (cs) => cs.state?.running || cs.state?.terminated || cs.lastState?.terminated,
      );
      if (!started && !this.pod.metadata.deletionTimestamp) {
        this.blocked = true;
        void this.checkDependencies();
      }
      if (this.pullSecretNames().length > 0) {
        this.secretsLoading = true;
        void this.refreshPullSecrets().finally(() => {
          this.secretsLoading = false;
          this.tick();
        });
      }
    } else {
      this.releaseResources();
    }
    this.update(this.pod);
  }

  /** A newer version of the pod from the watch. */
  update(pod: Pod): void {
    const wasDeleting = this.pod.metadata.deletionTimestamp !== undefined;
    this.pod = pod;
    if (this.done) return;
    // Debug containers added through pods/ephemeralcontainers start at once (not on a deleted pod).
    let added = false;
    if (this.lc && !pod.metadata.deletionTimestamp) for (const c of pod.spec.ephemeralContainers ?? []) added = this.lc.addEphemeral(c) || added;
    if (added) {
      this.tick();
      return;
    }
    if (pod.metadata.deletionTimestamp && (!wasDeleting || !this.lc?.stopping)) {
      const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
      this.lc?.requestStop(this.host.clock.now(), graceMs);
      this.tick();
      return;
    }
    if (!this.timer && !this.inflight) this.tick();
  }

  /** Something outside the lifecycle's own timers changed it (an attached shell ended its container): look now. */
  wake(): void {
    this.tick();
  }

  /** A container's volumes as they are now (for exec and attach sessions' file system). */
  mounts(container: Container): Promise<Mount[]> {
    return containerMounts(this.host.client, this.pod, container, (volume) => this.host.token?.(this.uid, volume));
  }

  /** The pod is gone from the API. */
  close(): void {
    this.done = true;
    this.host.timers.cancel(this.timer);
    this.host.timers.cancel(this.dependencyTimer);
    this.timer = undefined;
    this.releaseResources();
    this.host.closed(this.uid);
  }

  /** Events about the pod, or one of its containers (fieldPath spec.containers{name}), as the kubelet's. */
  private readonly recordEvent = (c: ContainerRuntime | undefined, type: EventType, reason: string, message: string): void => {
    const sink = this.host.events;
    if (!sink) return;
    // Listed items may lack kind/apiVersion; the reference must name them.
    const ref = { apiVersion: 'v1', kind: 'Pod', metadata: this.pod.metadata };
    if (c) sink.event(ref, type, reason, message, { fieldPath: containerFieldPath(c.name, c.init, c.ephemeral) });
    else sink.event(ref, type, reason, message);
  };

  private releaseResources(): void {
    if (this.resourcesReleased) return;
    this.resourcesReleased = true;
    if (!this.pod.spec.hostNetwork) this.host.releaseIP(this.podIP);
    this.host.released(this.uid);
  }

  private tick(): void {
    if (this.done || this.secretsLoading) return;
    this.host.timers.cancel(this.timer);
    this.timer = undefined;
    const now = this.host.clock.now();
    if (this.blocked && this.pod.metadata.deletionTimestamp) this.unblock();
    if (this.blocked) {
      this.sync();
      return;
    }
    const next = this.lc?.advance(now);
    if (next !== undefined) this.timer = this.host.timers.at(next, () => this.tick());
    // A pull that failed is tried again with the Secrets as they are by then (one created meanwhile counts).
    if (this.lc && !this.secretsRefreshing && this.pullSecretNames().length > 0 && this.pullFailing()) void this.refreshPullSecrets();
    this.sync();
  }

  /**
   * The volume manager's wait and the container config's check: FailedMount while a volume's source is
   * missing, then CreateContainerConfigError while an env source is; looked at again every few seconds.
   */
  private async checkDependencies(): Promise<void> {
    if (this.checking || this.done || !this.lc) return;
    this.checking = true;
    let again = true;
    try {
      const mounts = await mountFailures(this.host.client, this.pod);
      if (mounts.length > 0) {
        for (const m of mounts) this.recordEvent(undefined, 'Warning', Reason.FailedMount, m.message);
        return;
      }
      const configs = await configFailures(this.host.client, this.pod);
      const all = [...this.lc.initContainers, ...this.lc.containers];
      for (const c of all) {
        const f = configs.find((x) => x.container === c.name && x.init === c.init);
        const held = this.configHeld.get(c);
        if (f) {
          if (!held) this.configHeld.set(c, c.state);
          c.state = { kind: 'waiting', reason: 'CreateContainerConfigError', message: f.message };
          this.recordEvent(c, 'Warning', Reason.Failed, `Error: ${f.message}`);
        } else if (held) {
          c.state = held;
          this.configHeld.delete(c);
        }
      }
      if (configs.length > 0) return;
      again = false;
      this.unblock();
    } catch (e) {
      this.host.logger.warn({ pod: this.name, err: String(e) }, 'Failed to check the pod\'s volumes and config');
    } finally {
      this.checking = false;
      if (again && !this.done && this.blocked) {
        this.host.timers.cancel(this.dependencyTimer);
        this.dependencyTimer = this.host.timers.after(DEPENDENCY_RETRY_MS, () => void this.checkDependencies());
      }
      this.tick();
    }
  }

  private unblock(): void {
    for (const [c, state] of this.configHeld) c.state = state;
    this.configHeld.clear();
    this.blocked = false;
  }

  private pullSecretNames(): string[] {
    return (this.pod.spec.imagePullSecrets ?? []).map((s) => s.name).filter((n) => n);
  }

  private pullFailing(): boolean {
    return [...(this.lc?.initContainers ?? []), ...(this.lc?.containers ?? [])].some((c) => c.state.kind === 'waiting' && (c.state.reason === 'ErrImagePull' || c.state.reason === 'ImagePullBackOff'));
  }

  /** Reads the pod's imagePullSecrets into its lifecycle; names that cannot be read get the kubelet's Warning. */
  private async refreshPullSecrets(): Promise<void> {
    this.secretsRefreshing = true;
    try {
      const r = await readPullSecrets(this.host.client, this.pod.metadata.namespace ?? '', this.pullSecretNames());
      if (this.lc) this.lc.pullAuth = r.auth;
      if (r.missing.length > 0) this.recordEvent(undefined, 'Warning', Reason.FailedToRetrieveImagePullSecret, Message.pullSecretsMissing(r.missing));
    } catch (e) {
      this.host.logger.warn({ pod: this.name, err: String(e) }, 'Failed to read image pull secrets');
    } finally {
      this.secretsRefreshing = false;
    }
  }

  private desiredStatus(now: number): PodStatus {
    if (this.rejected) {
      return { phase: 'Failed', reason: this.rejected.reason, message: this.rejected.message, conditions: this.pod.status?.conditions };
    }
    if (!this.lc) return this.pod.status ?? {};
    const server = this.pod.status?.conditions ?? [];
    const ours = this.lastSentConditions ?? [];
    const merged: Condition[] = server.map((c) => ours.find((o) => o.type === c.type) ?? c);
    for (const o of ours) if (!merged.some((c) => c.type === o.type)) merged.push(o);
    const previous: PodStatus = { ...(this.pod.status ?? {}), conditions: merged };
    return renderStatus(this.pod, this.lc, { now, hostIP: this.host.hostIP(), podIP: this.podIP, previous });
  }

  private sync(): void {
    if (this.done) return;
    if (this.inflight) {
      this.dirty = true;
      return;
    }
    const now = this.host.clock.now();
    const finished = this.rejected !== undefined || !this.lc || this.lc.finished();
    if (finished) this.releaseResources();
    const status = this.desiredStatus(now);
    const hash = statusHash(status);
    if (hash !== this.lastSentHash && (this.lc || this.rejected)) {
      void this.send(status, hash);
      return;
    }
    if (finished && this.pod.metadata.deletionTimestamp && !this.deleteSent) void this.deletePod();
  }

  private async send(status: PodStatus, hash: string): Promise<void> {
    this.inflight = true;
    const body: Record<string, unknown> = { ...status };
    // A merge patch keeps fields it does not mention: clear the ones that went away.
    for (const k of this.lastSentKeys ?? Object.keys(this.pod.status ?? {})) if (!(k in body)) body[k] = null;
    let retry = false;
    try {
      await this.host.client.patch<Pod>(R.pods, this.pod.metadata.namespace, this.pod.metadata.name ?? '', { metadata: { uid: this.uid }, status: body }, 'merge', {
        subresource: 'status',
      });
      this.lastSentHash = hash;
      this.lastSentKeys = Object.keys(status);
      this.lastSentConditions = status.conditions;
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409 && /UID/i.test(e.message))) {
        this.inflight = false;
        this.close();
        return;
      }
      retry = true;
      this.host.logger.warn({ pod: this.name, err: String(e) }, 'Failed to update status for pod');
    }
    this.inflight = false;
    if (retry) {
      this.host.timers.cancel(this.timer);
      this.timer = this.host.timers.after(RETRY_MS, () => this.tick());
      return;
    }
    if (this.dirty) {
      this.dirty = false;
      this.sync();
      return;
    }
    this.sync();
  }

  private async deletePod(): Promise<void> {
    this.deleteSent = true;
    try {
      await this.host.client.delete(R.pods, this.pod.metadata.namespace, this.pod.metadata.name ?? '', {
        gracePeriodSeconds: 0,
        preconditions: { uid: this.uid },
      });
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
      this.deleteSent = false;
      this.host.logger.warn({ pod: this.name, err: String(e) }, 'Failed to delete pod');
      this.host.timers.cancel(this.timer);
      this.timer = this.host.timers.after(RETRY_MS, () => this.tick());
    }
  }
}

// Node heartbeats, as the kubelet sends them: the Lease kube-node-lease/<node> renewed every quarter of its
// duration (owned by the Node, so it goes with it), and the Node's status PATCHed every
// --node-status-update-frequency when it changed, and at least every --node-status-report-frequency.
// Renewals of many nodes are spread over the period by a phase offset; all share one TimerQueue.
import { R, StatusError, formatMicroTime, type Lease, type NodeStatus } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { KubeApi } from '../api.ts';
import type { TimerHandle, TimerQueue } from '../timers.ts';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface HeartbeatOptions {
  leaseDurationSeconds: number;
  statusUpdateMs: number;
  statusReportMs: number;
  /** 0..1: where in each period this node's renewals fall. */
  phase: number;
}

export interface HeartbeatTarget {
  name: string;
  /** The registered Node's uid (for the Lease's ownerReference); undefined until registered. */
  nodeUID(): string | undefined;
  /** The status to post now (conditions carry lastHeartbeatTime = now). */
  status(now: number): NodeStatus;
  /** Changes whenever the status would differ (other than heartbeat times): an image was pulled. */
  version(): number;
}

/**
 * A Lease with nothing but what the kubelet writes (the usual case): then only its resourceVersion is kept and
 * each renewal body is built afresh. Anything else on it (labels, other spec fields) makes us keep the object.
 */
function plainLease(l: Lease, name: string): boolean {
  const m = l.metadata;
  if (m.labels || m.annotations || m.finalizers || (m.ownerReferences?.length ?? 0) > 1) return false;
  const o = m.ownerReferences?.[0];
  if (o && (o.kind !== 'Node' || o.name !== name || o.apiVersion !== 'v1' || o.controller !== undefined || o.blockOwnerDeletion !== undefined)) return false;
  for (const k of Object.keys(l.spec ?? {})) if (k !== 'holderIdentity' && k !== 'leaseDurationSeconds' && k !== 'renewTime') return false;
  return true;
}

export class Heartbeat {
  /** The Lease as last written: its resourceVersion and owner (plain leases), or the object (others). */
  private leaseRV: string | undefined;
  private leaseOwner: string | undefined;
  private leaseObject: Lease | undefined;
  private leaseTimer: TimerHandle | undefined;
  private statusTimer: TimerHandle | undefined;
  private leaseFailures = 0;
  private lastVersion = -1;
  private lastReport = 0;
  private forced = true;
  private stopped = false;
  /** Counters for tests and metrics. */
  renewals = 0;
  statusPatches = 0;

  constructor(
    private readonly client: KubeApi,
    private readonly timers: TimerQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly target: HeartbeatTarget,
    private readonly opts: HeartbeatOptions,
  ) {}

  get renewIntervalMs(): number {
    return (this.opts.leaseDurationSeconds * 1000) / 4;
  }

  start(): void {
    const now = this.clock.now();
    this.leaseTimer = this.timers.at(now + Math.floor(this.opts.phase * this.renewIntervalMs), () => void this.renewLease());
    this.statusTimer = this.timers.at(now + Math.floor(this.opts.phase * this.opts.statusUpdateMs), () => void this.updateStatus());
  }

  stop(): void {
    this.stopped = true;
    this.timers.cancel(this.leaseTimer);
    this.timers.cancel(this.statusTimer);
  }

  /** Posts status at the next tick even if nothing changed (the Node was re-created or marked by a controller). */
  forceStatus(): void {
    this.forced = true;
  }

  /** Posts status now (after registration, or when a change must be seen at once). */
  statusNow(): void {
    this.forced = true;
    this.timers.cancel(this.statusTimer);
    this.statusTimer = this.timers.at(this.clock.now(), () => void this.updateStatus());
  }

  private async renewLease(): Promise<void> {
    if (this.stopped) return;
    let delay = this.renewIntervalMs;
    try {
      await this.tryRenew();
      this.leaseFailures = 0;
      this.renewals++;
    } catch (e) {
      // client-go's lease controller: 200ms doubling to 7s between failed attempts.
      this.leaseFailures++;
      delay = Math.min(200 * 2 ** (this.leaseFailures - 1), 7000, this.renewIntervalMs);
      this.logger.warn({ node: this.target.name, err: String(e) }, 'failed to update lease');
    }
    if (!this.stopped) this.leaseTimer = this.timers.after(delay, () => void this.renewLease());
  }

  /** The renewal body: built from what is known of the Lease (`base` when it has more than we write). */
  private desiredLease(base: Lease | undefined, rv: string | undefined, owner: string | undefined): Lease {
    const name = this.target.name;
    const uid = this.target.nodeUID() ?? owner;
    const lease: Lease = base
      ? { ...base, metadata: { ...base.metadata }, spec: { ...base.spec } }
      : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: NODE_LEASE_NAMESPACE }, spec: {} };
    if (!base && rv !== undefined) lease.metadata.resourceVersion = rv;
    lease.spec = { ...lease.spec, holderIdentity: name, leaseDurationSeconds: this.opts.leaseDurationSeconds, renewTime: formatMicroTime(this.clock.now()) };
    if (uid && !(lease.metadata.ownerReferences ?? []).some((o) => o.uid === uid)) {
      lease.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name, uid }];
    }
    return lease;
  }

  private remember(l: Lease): void {
    if (plainLease(l, this.target.name)) {
      this.leaseObject = undefined;
      this.leaseRV = l.metadata.resourceVersion;
      this.leaseOwner = l.metadata.ownerReferences?.[0]?.uid;
    } else {
      this.leaseObject = l;
      this.leaseRV = undefined;
      this.leaseOwner = undefined;
    }
  }

  private async tryRenew(): Promise<void> {
    const name = this.target.name;
    if (this.leaseObject || this.leaseRV !== undefined) {
      try {
        this.remember(await this.client.update<Lease>(R.leases, NODE_LEASE_NAMESPACE, this.desiredLease(this.leaseObject, this.leaseRV, this.leaseOwner)));
        return;
      } catch (e) {
        if (!(e instanceof StatusError) || (e.code !== 409 && e.code !== 404)) throw e;
        this.leaseObject = undefined;
        this.leaseRV = undefined;
        this.leaseOwner = undefined;
      }
    }
    try {
      const current = await this.client.get<Lease>(R.leases, NODE_LEASE_NAMESPACE, name);
      this.remember(await this.client.update<Lease>(R.leases, NODE_LEASE_NAMESPACE, this.desiredLease(current, undefined, undefined)));
    } catch (e) {
      if (!(e instanceof StatusError) || e.code !== 404) throw e;
      this.remember(await this.client.create<Lease>(R.leases, NODE_LEASE_NAMESPACE, this.desiredLease(undefined, undefined, undefined)));
    }
  }

  private async updateStatus(): Promise<void> {
    if (this.stopped) return;
    const now = this.clock.now();
    try {
      if (this.target.nodeUID() !== undefined) {
        const version = this.target.version();
        if (this.forced || version !== this.lastVersion || now - this.lastReport >= this.opts.statusReportMs) {
          this.forced = false;
          const status = this.target.status(now);
          await this.client.patch(R.nodes, undefined, this.target.name, { status }, 'merge', { subresource: 'status' });
          this.lastVersion = version;
          this.lastReport = now;
          this.statusPatches++;
        }
      }
    } catch (e) {
      this.forced = true;
      this.logger.warn({ node: this.target.name, err: String(e) }, 'Error updating node status, will retry');
    }
    if (!this.stopped) {
      this.timers.cancel(this.statusTimer);
      this.statusTimer = this.timers.after(this.opts.statusUpdateMs, () => void this.updateStatus());
    }
  }
}

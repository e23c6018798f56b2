// Where the leader-election record lives (client-go's resourcelock): a tiny lock interface and its one
// implementation on a coordination.k8s.io/v1 Lease. Updates carry the resourceVersion last read, so two
// candidates racing for the same record cannot both win (the loser gets 409 Conflict).
import { R, formatMicroTime, parseTime, type Lease, type LeaseSpec } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { EventRecorder } from '../events.ts';
import type { RestClient } from '../rest.ts';
import { LeaseFollower } from './leasewatch.ts';

export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** ms since the epoch */
  acquireTime: number;
  renewTime: number;
  leaderTransitions: number;
}

/** A record as read, with the raw form used to tell whether it changed since the last look. */
export interface ObservedRecord {
  record: LeaderElectionRecord;
  raw: string;
  /** The lock object's resourceVersion, to drop a read older than one already seen. */
  resourceVersion?: string;
}

/** Streams changes of the lock object (see LeaseFollower). */
export interface LockFollower {
  run(signal: AbortSignal): Promise<void>;
  /** The stream is presumed dead: reconnect from the last version seen. */
  restart(): void;
}

export interface ResourceLock {
  /** The current record, or undefined when the lock object does not exist. */
  get(signal?: AbortSignal): Promise<ObservedRecord | undefined>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedRecord>;
  /** Replaces the record of the object last read or written (409 if it changed meanwhile). */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedRecord>;
  recordEvent(message: string): void;
  /**
   * Optional: follow the lock object so a candidate sees changes as they are written (undefined = deleted).
   * Must not touch what get/create/update use for their resourceVersion.
   */
  follow?(onChange: (o: ObservedRecord | undefined) => void, opts: { clock: Clock; logger: Logger }): LockFollower;
  identity(): string;
  describe(): string;
}

/** True when both are integers and a is older than b (kemu's resourceVersions are; anything else compares as "not older"). */
export function olderVersion(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return a.length !== b.length ? a.length < b.length : a < b;
}

function toSpec(r: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: formatMicroTime(r.acquireTime),
    renewTime: formatMicroTime(r.renewTime),
    leaseTransitions: r.leaderTransitions,
  };
}

export function fromLease(l: Lease): ObservedRecord {
  const s = l.spec ?? {};
  const record: LeaderElectionRecord = {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: parseTime(s.acquireTime) || 0,
    renewTime: parseTime(s.renewTime) || 0,
    leaderTransitions: s.leaseTransitions ?? 0,
  };
  return {
    record,
    raw: JSON.stringify([s.holderIdentity, s.leaseDurationSeconds, s.acquireTime, s.renewTime, s.leaseTransitions]),
    resourceVersion: l.metadata.resourceVersion,
  };
}

export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined;

  constructor(
    private readonly client: RestClient,
    readonly namespace: string,
    readonly name: string,
    private readonly id: string,
    private readonly recorder?: EventRecorder,
  ) {}

  async get(signal?: AbortSignal): Promise<ObservedRecord | undefined> {
    try {
      this.lease = await this.client.get<Lease>(R.leases, this.namespace, this.name, { signal });
    } catch (e) {
      if ((e as { code?: unknown }).code === 404) return undefined;
      throw e;
    }
    return fromLease(this.lease);
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedRecord> {
    this.lease = await this.client.create<Lease>(
      R.leases,
      this.namespace,
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace: this.namespace }, spec: toSpec(record) },
      { signal },
    );
    return fromLease(this.lease);
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<ObservedRecord> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first');
    this.lease = await this.client.update<Lease>(R.leases, this.namespace, { ...this.lease, spec: toSpec(record) }, { signal });
    return fromLease(this.lease);
  }

  recordEvent(message: string): void {
    if (!this.recorder || !this.lease) return;
    this.recorder.event(this.lease, 'Normal', 'LeaderElection', `${this.id} ${message}`);
  }

  follow(onChange: (o: ObservedRecord | undefined) => void, opts: { clock: Clock; logger: Logger }): LockFollower {
    return new LeaseFollower(this.client, this.namespace, this.name, (l) => onChange(l ? fromLease(l) : undefined), opts);
  }

  identity(): string {
    return this.id;
  }

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }
}

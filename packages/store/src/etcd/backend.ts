// EtcdBackend: the Backend contract on etcd v3. etcd already is a log-structured store with one global
// revision, so each verb is one request: create/update/delete are Txns comparing create_revision or
// mod_revision (so preconditions hold atomically, and a failed compare costs no revision), lists are
// Ranges at a revision, watches are etcd watches (watcher.ts), compaction is etcd's Compact.
// Values are the apiserver's JSON as UTF-8 (Kubernetes itself stores protobuf there).
import { silentLogger, type Logger } from '@kemu/base';
import {
  CompactedError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  RevisionMismatchError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type MemberHealth,
  type Watch,
  type WatchHandlers,
} from '../backend.ts';
import { checkKey } from '../keys.ts';
import { EtcdClient, etcdMessage, type EtcdServer, type EtcdTls, type PbKeyValue, type RangeResponse } from './client.ts';
import { KeySpace } from './keyspace.ts';
import { EtcdWatcher } from './watcher.ts';

export interface EtcdOptions extends EtcdTls {
  servers: EtcdServer[];
  /** --etcd-prefix (default /registry). */
  prefix?: string;
  /** --etcd-compaction-interval: compact to the revision seen one interval earlier. 0 disables it. Default 5 min. */
  compactIntervalMs?: number;
  /** --etcd-healthcheck-timeout. Default 2 s. */
  healthCheckTimeoutMs?: number;
  logger?: Logger;
}

const COMPACTED = 'mvcc: required revision has been compacted';
const FUTURE = 'mvcc: required revision is a future revision';

export class EtcdBackend implements Backend {
  private readonly client: EtcdClient;
  private readonly keys: KeySpace;
  private readonly watchers = new Set<EtcdWatcher>();
  private readonly logger: Logger;
  private readonly healthTimeoutMs: number;
  private readonly compactTimer: NodeJS.Timeout | undefined;
  /** The compact revision last seen; etcd's only ever grows, so it is where the next search starts. */
  private knownCompacted = 0;
  private closed = false;

  constructor(opts: EtcdOptions) {
    this.logger = opts.logger ?? silentLogger();
    this.keys = new KeySpace(opts.prefix ?? '/registry');
    this.client = new EtcdClient(opts.servers, opts);
    this.healthTimeoutMs = opts.healthCheckTimeoutMs ?? 2000;
    const interval = opts.compactIntervalMs ?? 5 * 60_000;
    if (interval > 0) {
      // As kube-apiserver's compactor: each tick compacts to the revision the previous tick saw, so at
      // least one interval of history stays for watches to resume from.
      let last = 0;
      this.compactTimer = setInterval(() => {
        void (async () => {
          const head = await this.currentRevision();
          if (last > 0) await this.compact(last);
          last = head;
        })().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'etcd compaction failed'));
      }, interval);
      this.compactTimer.unref();
    }
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    checkKey(key);
    const res = await this.client.range({ key: this.keys.toEtcd(key) });
    const kv = res.kvs[0];
    return kv ? this.kv(kv) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const range = this.keys.range(prefix);
    const revision = opts.revision && opts.revision > 0 ? opts.revision : 0;
    if (!range) return { items: [], revision: revision || (await this.currentRevision()), more: false, remaining: 0 };
    const start = opts.startAfter !== undefined ? Buffer.concat([this.keys.toEtcd(opts.startAfter), Buffer.from([0])]) : range.key;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const res = await this.readAt(revision, () => this.client.range({ key: start, range_end: range.rangeEnd, revision, limit }));
    const items = res.kvs.map((kv) => this.kv(kv));
    const remaining = Math.max(0, res.count - items.length);
    return { items, revision: revision || res.header.revision, more: res.more, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    const range = this.keys.range(prefix);
    if (!range) return 0;
    const res = await this.client.range({ key: range.key, range_end: range.rangeEnd, count_only: true });
    return res.count;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    checkKey(key);
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    const res = await this.client.txn({
      compare: [{ result: 'EQUAL', target: 'CREATE', key: k, create_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8') } }],
      failure: [],
    });
    if (!res.succeeded) throw new KeyExistsError(key);
    const rev = res.header.revision;
    return { key, value, modRevision: rev, createRevision: rev };
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    checkKey(key);
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    const res = await this.client.txn({
      compare: [this.precondition(k, expectedRevision)],
      success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8'), prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) this.preconditionFailed(key, expectedRevision, res.responses[0]?.response_range);
    const prev = res.responses[0]?.response_put?.prev_kv;
    if (!prev) throw new KeyNotFoundError(key); // cannot happen: the compare saw the key
    return { key, value, modRevision: res.header.revision, createRevision: prev.create_revision };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    checkKey(key);
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    const res = await this.client.txn({
      compare: [this.precondition(k, expectedRevision)],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) this.preconditionFailed(key, expectedRevision, res.responses[0]?.response_range);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!prev) throw new KeyNotFoundError(key);
    return { key, value: prev.value.toString('utf8'), modRevision: res.header.revision, createRevision: prev.create_revision };
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    const res = await this.client.range({ key: this.healthKey(), count_only: true });
    return res.header.revision;
  }

  /**
   * etcd does not report its compact revision, but a Range at revision r fails exactly when r is below it:
   * one Range confirms the last known value, a binary search finds a newer one.
   */
  async compactRevision(): Promise<number> {
    this.checkOpen();
    const known = this.knownCompacted;
    if (await this.readable(Math.max(1, known))) return known;
    let lo = Math.max(1, known); // unreadable
    let hi = await this.currentRevision(); // the head is always readable
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.readable(mid)) hi = mid;
      else lo = mid;
    }
    this.knownCompacted = Math.max(this.knownCompacted, hi);
    return this.knownCompacted;
  }

  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch {
    if (this.closed) {
      setImmediate(() => handlers.onError(new Error('store is closed')));
      return { close: () => {} };
    }
    const range = this.keys.range(prefix);
    if (!range) return { close: () => {} }; // no store key can match it
    const w = new EtcdWatcher({ client: this.client, keys: this.keys, onDone: (x) => this.watchers.delete(x) }, range, fromRevision, handlers);
    this.watchers.add(w);
    return w;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    const target = Math.min(revision, await this.currentRevision());
    if (target <= this.knownCompacted) return;
    try {
      await this.client.compact(target);
      this.knownCompacted = target;
    } catch (err) {
      // Another apiserver (or an earlier call) compacted past it already: nothing to do.
      if (!etcdMessage(err).includes(COMPACTED)) throw err;
    }
  }

  /** kube-apiserver's etcd check: a quorum read of <prefix>/health within --etcd-healthcheck-timeout. */
  async healthy(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.client.range({ key: this.healthKey(), count_only: true }, this.healthTimeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  /** Each --etcd-servers member's health, in flag order (componentstatuses etcd-0..N). */
  async memberHealth(): Promise<MemberHealth[]> {
    return Promise.all(
      this.client.members.map(async (m, i) => {
        if (this.closed) return { server: m.server.url, healthy: false, error: 'store is closed' };
        try {
          await this.client.rangeOn(i, { key: this.healthKey(), count_only: true }, this.healthTimeoutMs);
          return { server: m.server.url, healthy: true };
        } catch (err) {
          return { server: m.server.url, healthy: false, error: etcdMessage(err) };
        }
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.compactTimer);
    for (const w of [...this.watchers]) w.close();
    this.client.close();
  }

  private healthKey(): Buffer {
    return Buffer.from(`${this.keys.prefix}/health`, 'utf8');
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  private kv(p: PbKeyValue): KeyValue {
    return { key: this.keys.fromEtcd(p.key), value: p.value.toString('utf8'), modRevision: p.mod_revision, createRevision: p.create_revision };
  }

  /** The key exists, and has the expected mod revision when one is given. */
  private precondition(key: Buffer, expected: number | undefined): { result: 'EQUAL' | 'GREATER'; target: 'MOD' | 'CREATE'; key: Buffer; mod_revision?: number; create_revision?: number } {
    return expected
      ? { result: 'EQUAL', target: 'MOD', key, mod_revision: expected }
      : { result: 'GREATER', target: 'CREATE', key, create_revision: 0 };
  }

  private preconditionFailed(key: string, expected: number | undefined, current: RangeResponse | undefined): never {
    const kv = current?.kvs[0];
    if (!kv) throw new KeyNotFoundError(key);
    throw new RevisionMismatchError(key, expected ?? 0, this.kv(kv));
  }

  /** A read at a revision, with etcd's compacted/future errors as the contract's. */
  private async readAt<T>(revision: number, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      const msg = etcdMessage(err);
      if (msg.includes(COMPACTED)) throw new CompactedError(revision, await this.compactRevision());
      if (msg.includes(FUTURE)) throw new FutureRevisionError(revision, await this.currentRevision());
      throw err;
    }
  }

  private async readable(revision: number): Promise<boolean> {
    try {
      await this.client.range({ key: this.healthKey(), count_only: true, revision });
      return true;
    } catch (err) {
      if (etcdMessage(err).includes(COMPACTED)) return false;
      throw err;
    }
  }
}

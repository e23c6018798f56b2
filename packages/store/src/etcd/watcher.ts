// One store watch on an etcd Watch stream: start_revision = fromRevision + 1 (etcd's start is
// inclusive), prev_kv for the previous values, progress_notify so a quiet watch still learns the current
// revision. When the stream breaks (member down, connection reset) it reopens, on another member if there
// are several, from the last revision it knows, so the caller sees no gap and no duplicate; a resume
// position etcd has compacted away ends the watch with CompactedError, as a fresh one would.
import { CompactedError, type KeyValue, type Watch, type WatchEvent, type WatchHandlers } from '../backend.ts';
import type { EtcdClient, PbEvent, PbKeyValue, WatchResponse, WatchStream } from './client.ts';
import type { KeyRange, KeySpace } from './keyspace.ts';

export interface WatcherDeps {
  client: EtcdClient;
  keys: KeySpace;
  /** Called when the watch ends for good (closed or failed), to forget it. */
  onDone: (w: EtcdWatcher) => void;
}

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

export class EtcdWatcher implements Watch {
  private stream: WatchStream | undefined;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: WatcherDeps,
    private readonly range: KeyRange,
    /** The last revision delivered or known to have no events for this watch. */
    private position: number,
    private readonly handlers: WatchHandlers,
  ) {
    this.open();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.stopStream();
    this.deps.onDone(this);
  }

  private open(): void {
    if (this.closed) return;
    const { stream, member } = this.deps.client.watchStream();
    this.stream = stream;
    let ended = false;
    const broken = (): void => {
      if (ended || this.stream !== stream) return;
      ended = true;
      this.stopStream();
      if (this.closed) return;
      this.deps.client.failover(member);
      this.timer = setTimeout(() => this.open(), this.retryMs);
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    };
    stream.on('data', (res) => {
      if (this.stream === stream) this.receive(res);
    });
    stream.on('error', broken);
    stream.on('end', broken);
    stream.write({
      create_request: {
        key: this.range.key,
        range_end: this.range.rangeEnd,
        start_revision: this.position + 1,
        progress_notify: true,
        prev_kv: true,
      },
    });
  }

  private receive(res: WatchResponse): void {
    if (this.closed) return;
    if (res.compact_revision > 0) {
      this.fail(new CompactedError(this.position, res.compact_revision));
      return;
    }
    if (res.canceled) {
      this.fail(new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    this.retryMs = RETRY_MIN_MS;
    if (res.events.length === 0) {
      // Created or a progress notification: nothing for this watch up to the header's revision.
      if (!res.created && res.header.revision > this.position) this.position = res.header.revision;
      return;
    }
    const events: WatchEvent[] = [];
    for (const e of res.events) {
      // A resumed stream may repeat what was already delivered.
      if (e.kv.mod_revision <= this.position) continue;
      events.push(this.toEvent(e));
    }
    if (events.length === 0) return;
    this.position = (events[events.length - 1] as WatchEvent).revision;
    try {
      this.handlers.onEvents(events);
    } catch {
      // A handler's failure is the caller's problem; it must not stop the watch.
    }
  }

  private toEvent(e: PbEvent): WatchEvent {
    const kv = (p: PbKeyValue): KeyValue => ({
      key: this.deps.keys.fromEtcd(p.key),
      value: p.value.toString('utf8'),
      modRevision: p.mod_revision,
      createRevision: p.create_revision,
    });
    const prev = e.prev_kv ? kv(e.prev_kv) : undefined;
    const revision = e.kv.mod_revision;
    if (e.type === 'DELETE') {
      const last: KeyValue = {
        key: this.deps.keys.fromEtcd(e.kv.key),
        value: prev?.value ?? '',
        modRevision: revision,
        createRevision: prev?.createRevision ?? 0,
      };
      return prev ? { type: 'delete', kv: last, prevKv: prev, revision } : { type: 'delete', kv: last, revision };
    }
    const cur = kv(e.kv);
    if (e.kv.create_revision === e.kv.mod_revision) return { type: 'create', kv: cur, revision };
    return prev ? { type: 'update', kv: cur, prevKv: prev, revision } : { type: 'update', kv: cur, revision };
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.close();
    this.handlers.onError(err);
  }

  private stopStream(): void {
    const s = this.stream;
    this.stream = undefined;
    if (!s) return;
    // Swallow the CANCELLED error our own cancel causes.
    s.on('error', () => {});
    s.cancel();
  }
}

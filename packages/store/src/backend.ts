// The storage contract every backend (SQLite, in-memory, etcd) implements, and the one
// conformance suite in conformance.ts checks. Values are opaque strings (the apiserver stores JSON).
// Revisions are global across all keys: every write (create, update, delete) gets the next one.

export interface KeyValue {
  key: string;
  value: string;
  /** Revision of the write that produced this value (the object's resourceVersion). */
  modRevision: number;
  /** Revision at which the key was created. */
  createRevision: number;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  /** For create/update: the new value. For delete: the last value, with modRevision = the delete's revision. */
  kv: KeyValue;
  /** The value before this write (absent for create). */
  prevKv?: KeyValue;
  revision: number;
}

export interface ListOptions {
  /** At most this many items; 0 or absent = all. */
  limit?: number;
  /** Return keys strictly after this key (a continue token's position). */
  startAfter?: string;
  /** Read the state as of this revision (must not be compacted). 0 or absent = current. */
  revision?: number;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list is consistent at. */
  revision: number;
  /** More items remain after the last returned one. */
  more: boolean;
  /** How many items remain after this page (when known). */
  remaining?: number;
}

export interface Watch {
  /** Stops delivery; idempotent. */
  close(): void;
}

export interface WatchHandlers {
  /** Events with revision > fromRevision, in revision order, no gaps, no duplicates. */
  onEvents(events: WatchEvent[]): void;
  /** The watch cannot continue (e.g. its position was compacted away); no more events follow. */
  onError(err: Error): void;
}

export interface Backend {
  get(key: string): Promise<KeyValue | undefined>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;
  /** Fails with KeyExistsError if the key exists. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Fails with KeyNotFoundError, or RevisionMismatchError when expectedRevision (if given, non-zero) differs. */
  update(key: string, value: string, expectedRevision?: number): Promise<KeyValue>;
  /** Returns the deleted value with modRevision = the delete's revision. */
  delete(key: string, expectedRevision?: number): Promise<KeyValue>;
  currentRevision(): Promise<number>;
  /** Oldest revision still watchable / listable: requests below it fail with CompactedError. */
  compactRevision(): Promise<number>;
  /** Watch keys under prefix for writes after fromRevision. Fails (onError) with CompactedError if fromRevision < compactRevision. */
  watch(prefix: string, fromRevision: number, handlers: WatchHandlers): Watch;
  /** Removes superseded history at or below revision (bounded work per call). */
  compact(revision: number): Promise<void>;
  /** Backend health for /readyz and componentstatuses. */
  healthy(): Promise<boolean>;
  /** Health of each server of a clustered backend (etcd: one per --etcd-servers entry), for componentstatuses. */
  memberHealth?(): Promise<MemberHealth[]>;
  close(): Promise<void>;
}

export interface MemberHealth {
  /** The server as configured (an --etcd-servers URL). */
  server: string;
  healthy: boolean;
  error?: string;
}

export class KeyExistsError extends Error {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
    this.name = 'KeyExistsError';
  }
}

export class KeyNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
    this.name = 'KeyNotFoundError';
  }
}

export class RevisionMismatchError extends Error {
  constructor(
    readonly key: string,
    readonly expected: number,
    readonly current: KeyValue,
  ) {
    super(`revision mismatch on ${key}: expected ${expected}, have ${current.modRevision}`);
    this.name = 'RevisionMismatchError';
  }
}

export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`required revision ${requested} has been compacted (oldest available ${compacted})`);
    this.name = 'CompactedError';
  }
}

/** A list asked for a revision newer than the store's current one (etcd: "future revision"). */
export class FutureRevisionError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`required revision ${requested} is a future revision (current ${current})`);
    this.name = 'FutureRevisionError';
  }
}

/**
 * The backend refuses writes because it cannot make them durable (the apiserver's 503): e.g. the file it
 * writes was deleted or replaced underneath it. Not retried by the backend; another replica may serve.
 */
export class StoreUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`storage is unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }
}

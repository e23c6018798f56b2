// One change as the watch cache holds it: the object is serialized once, and each wire form of the
// event (per type, raw or Table) is built once and shared by every watcher that needs it.
import type { KubeObject } from '@kemu/api';
import type { CachedObject } from './resource-cache.ts';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export class CacheEvent {
  private lines = new Map<string, Buffer>();
  private prevAtRvJson: string | undefined;

  constructor(
    readonly type: CacheEventType,
    private readonly cur: CachedObject,
    private readonly before?: CachedObject,
  ) {}

  get rv(): number {
    return this.cur.rv;
  }

  get key(): string {
    return this.cur.key;
  }

  get namespace(): string | undefined {
    return this.cur.namespace;
  }

  get json(): string {
    return this.cur.json;
  }

  /** Shared, never mutated (parsed on first use). */
  get object(): KubeObject {
    return this.cur.object;
  }

  get prev(): KubeObject | undefined {
    return this.before?.object;
  }

  /** The wire line for this event as `type` (a selector can turn MODIFIED into ADDED or DELETED). */
  line(type: CacheEventType): Buffer {
    let b = this.lines.get(type);
    if (!b) {
      const json = type === 'DELETED' && this.type === 'MODIFIED' ? this.prevJsonAtRv() : this.json;
      b = Buffer.from(`{"type":"${type}","object":${json}}\n`);
      this.lines.set(type, b);
    }
    return b;
  }

  /** A cached variant keyed by the caller (e.g. Table rows), built at most once. */
  variant(key: string, build: () => Buffer): Buffer {
    let b = this.lines.get(key);
    if (!b) {
      b = build();
      this.lines.set(key, b);
    }
    return b;
  }

  /** For "stopped matching the selector": the previous content with this event's resourceVersion. */
  objectFor(type: CacheEventType): KubeObject {
    if (type === 'DELETED' && this.type === 'MODIFIED' && this.prev) return JSON.parse(this.prevJsonAtRv()) as KubeObject;
    return this.object;
  }

  private prevJsonAtRv(): string {
    if (this.prevAtRvJson === undefined) {
      const p = this.prev ?? this.object;
      this.prevAtRvJson = JSON.stringify({ ...p, metadata: { ...p.metadata, resourceVersion: String(this.rv) } });
    }
    return this.prevAtRvJson;
  }
}

export function lineFor(type: string, object: unknown): Buffer {
  return Buffer.from(`{"type":"${type}","object":${JSON.stringify(object)}}\n`);
}

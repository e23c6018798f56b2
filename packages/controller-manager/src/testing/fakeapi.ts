// Test double for the apiserver: an in-memory object store with Kubernetes' write semantics that the
// controllers depend on (resourceVersion conflicts, generateName, generation bumps on spec changes,
// finalizers and deletionTimestamp, propagation policies, namespace finalize), and a change feed the fake
// informers subscribe to. Not a conformance model of the API; just enough to observe controller behaviour.
import { randomUUID } from 'node:crypto';
import {
  StatusError,
  errors,
  formatTime,
  qualifiedResource,
  selectorMatches,
  labelSelectorAsSelector,
  type DeleteOptions,
  type KubeList,
  type KubeObject,
  type ResourceInfo,
  type WatchEventType,
} from '@kemu/api';
import type { Clock } from '@kemu/base';

export type FakeEvent = { type: Exclude<WatchEventType, 'BOOKMARK' | 'ERROR'>; resource: ResourceInfo; object: KubeObject };

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export interface Call {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
  body?: unknown;
}

export class FakeApi {
  private readonly objects = new Map<string, KubeObject>();
  private rv = 1;
  private readonly listeners = new Set<(e: FakeEvent) => void>();
  readonly calls: Call[] = [];
  /** Hook to fail or delay a request: return an error to throw it. */
  failWith?: (call: Call) => StatusError | undefined;
  /** Answers SubjectAccessReviews (created, never stored): status.allowed is what it returns; default: not allowed. */
  reviewAccess?: (spec: Record<string, unknown>) => boolean;

  constructor(private readonly clock: Clock) {}

  subscribe(fn: (e: FakeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private k(r: ResourceInfo, ns: string | undefined, name: string): string {
    return `${r.group}/${r.plural}/${r.namespaced ? (ns ?? '') : ''}/${name}`;
  }

  private emit(type: FakeEvent['type'], resource: ResourceInfo, object: KubeObject): void {
    for (const l of this.listeners) l({ type, resource, object: structuredClone(object) });
  }

  private record(call: Call): void {
    this.calls.push(call);
    const err = this.failWith?.(call);
    if (err) throw err;
  }

  /** Every stored object of a resource (for assertions). */
  all<T extends KubeObject>(r: ResourceInfo, ns?: string): T[] {
    const prefix = `${r.group}/${r.plural}/`;
    return [...this.objects.entries()]
      .filter(([k, o]) => k.startsWith(prefix) && (ns === undefined || o.metadata.namespace === ns))
      .map(([, o]) => structuredClone(o) as T);
  }

  async get<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, name: string): Promise<T> {
    this.record({ verb: 'get', resource: r.plural, namespace, name });
    const o = this.objects.get(this.k(r, namespace, name));
    if (!o) throw errors.notFound(qualifiedResource(r), name);
    return structuredClone(o) as T;
  }

  async list<T extends KubeObject>(r: ResourceInfo, namespace?: string, opts?: { labelSelector?: string }): Promise<KubeList<T>> {
    this.record({ verb: 'list', resource: r.plural, namespace });
    let items = this.all<T>(r, r.namespaced ? namespace : undefined);
    if (opts?.labelSelector) {
      const sel = labelSelectorAsSelector({
        matchLabels: Object.fromEntries(opts.labelSelector.split(',').map((p) => p.split('=') as [string, string])),
      });
      items = items.filter((o) => selectorMatches(sel, o.metadata.labels));
    }
    return { apiVersion: 'v1', kind: r.listKind, metadata: { resourceVersion: String(this.rv) }, items };
  }

  /** Stores obj as the server would (for seeding tests and for create). */
  async create<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, obj: T): Promise<T> {
    this.record({ verb: 'create', resource: r.plural, namespace, name: obj.metadata.name, body: obj });
    if (r.kind === 'SubjectAccessReview') {
      const spec = (obj as KubeObject & { spec?: Record<string, unknown> }).spec ?? {};
      return { ...structuredClone(obj), status: { allowed: this.reviewAccess?.(spec) ?? false } } as T;
    }
    const o = structuredClone(obj) as KubeObject;
    const ns = r.namespaced ? (namespace ?? o.metadata.namespace) : undefined;
    if (ns) {
      const nsObj = this.objects.get(`/namespaces//${ns}`);
      if (nsObj?.metadata.deletionTimestamp)
        throw new StatusError('Forbidden', `${r.plural} "${o.metadata.name ?? o.metadata.generateName ?? ''}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
    }
    if (!o.metadata.name && o.metadata.generateName) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
      o.metadata.name = o.metadata.generateName + suffix;
    }
    const name = o.metadata.name ?? '';
    const key = this.k(r, ns, name);
    if (this.objects.has(key)) throw errors.alreadyExists(qualifiedResource(r), name);
    o.apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
    o.kind = r.kind;
    o.metadata.namespace = ns;
    if (!ns) delete o.metadata.namespace;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = formatTime(this.clock.now());
    o.metadata.resourceVersion = String(++this.rv);
    o.metadata.generation = 1;
    if (r.kind === 'Namespace') {
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
    }
    this.objects.set(key, o);
    this.emit('ADDED', r, o);
    return structuredClone(o) as T;
  }

  async update<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, obj: T, opts?: { subresource?: string }): Promise<T> {
    this.record({ verb: opts?.subresource ? `update/${opts.subresource}` : 'update', resource: r.plural, namespace, name: obj.metadata.name, body: obj });
    const name = obj.metadata.name ?? '';
    const key = this.k(r, namespace, name);
    const cur = this.objects.get(key);
    if (!cur) throw errors.notFound(qualifiedResource(r), name);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== cur.metadata.resourceVersion)
      throw errors.conflict(qualifiedResource(r), name);
    let next = structuredClone(obj) as KubeObject;
    if (opts?.subresource === 'status') {
      next = { ...structuredClone(cur), status: structuredClone(obj.status) };
    } else if (opts?.subresource === 'approval') {
      // certificatesigningrequests/approval writes the conditions only.
      const conditions = structuredClone((obj.status as { conditions?: unknown } | undefined)?.conditions);
      next = { ...structuredClone(cur), status: { ...(cur.status as object), conditions } };
    } else if (opts?.subresource === 'finalize') {
      next = { ...structuredClone(cur), spec: { ...(cur.spec as object), finalizers: (obj.spec as { finalizers?: string[] })?.finalizers ?? [] } };
    } else {
      next.status = structuredClone(cur.status);
      next.metadata = { ...next.metadata, uid: cur.metadata.uid, creationTimestamp: cur.metadata.creationTimestamp, deletionTimestamp: cur.metadata.deletionTimestamp };
      if (JSON.stringify(cur.spec) !== JSON.stringify(next.spec)) next.metadata.generation = (cur.metadata.generation ?? 1) + 1;
      else next.metadata.generation = cur.metadata.generation;
    }
    return this.store(r, key, next) as T;
  }

  async updateStatus<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, obj: T): Promise<T> {
    return this.update(r, namespace, obj, { subresource: 'status' });
  }

  async patch<T extends KubeObject>(r: ResourceInfo, namespace: string | undefined, name: string, patch: unknown, type: string, opts?: { subresource?: string }): Promise<T> {
    this.record({ verb: opts?.subresource ? `patch/${opts.subresource}` : 'patch', resource: r.plural, namespace, name, body: patch });
    if (type !== 'merge') throw new StatusError('UnsupportedMediaType', `fake api supports merge patches only, got ${type}`);
    const key = this.k(r, namespace, name);
    const cur = this.objects.get(key);
    if (!cur) throw errors.notFound(qualifiedResource(r), name);
    const pm = (patch as { metadata?: { resourceVersion?: string; uid?: string } }).metadata;
    if (pm?.resourceVersion && pm.resourceVersion !== cur.metadata.resourceVersion) throw errors.conflict(qualifiedResource(r), name);
    if (pm?.uid && pm.uid !== cur.metadata.uid) throw errors.conflict(qualifiedResource(r), name, 'Precondition failed: UID in precondition does not match');
    const next = mergePatch(structuredClone(cur), patch) as KubeObject;
    next.metadata.uid = cur.metadata.uid;
    if (opts?.subresource === 'status') {
      const only = { ...structuredClone(cur), status: next.status };
      return this.store(r, key, only) as T;
    }
    if (JSON.stringify(cur.spec) !== JSON.stringify(next.spec)) next.metadata.generation = (cur.metadata.generation ?? 1) + 1;
    return this.store(r, key, next) as T;
  }

  private store(r: ResourceInfo, key: string, next: KubeObject): KubeObject {
    next.metadata.resourceVersion = String(++this.rv);
    // An object being deleted goes away once its last finalizer is removed.
    const finalizers = r.kind === 'Namespace' ? (next.spec as { finalizers?: string[] } | undefined)?.finalizers : next.metadata.finalizers;
    if (next.metadata.deletionTimestamp && (finalizers ?? []).length === 0 && (next.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(key);
      this.emit('DELETED', r, next);
      return structuredClone(next);
    }
    this.objects.set(key, next);
    this.emit('MODIFIED', r, next);
    return structuredClone(next);
  }

  async delete(r: ResourceInfo, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<KubeObject> {
    this.record({ verb: 'delete', resource: r.plural, namespace, name, body: opts });
    const key = this.k(r, namespace, name);
    const cur = this.objects.get(key);
    if (!cur) throw errors.notFound(qualifiedResource(r), name);
    if (opts?.preconditions?.uid && opts.preconditions.uid !== cur.metadata.uid)
      throw errors.conflict(qualifiedResource(r), name, `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${cur.metadata.uid ?? ''}`);
    if (opts?.preconditions?.resourceVersion && opts.preconditions.resourceVersion !== cur.metadata.resourceVersion)
      throw errors.conflict(qualifiedResource(r), name);
    const next = structuredClone(cur);
    const finalizers = new Set(next.metadata.finalizers ?? []);
    if (opts?.propagationPolicy === 'Foreground') finalizers.add('foregroundDeletion');
    if (opts?.propagationPolicy === 'Orphan' || opts?.orphanDependents) finalizers.add('orphan');
    if (r.kind === 'Namespace') {
      if (next.metadata.deletionTimestamp) return structuredClone(next);
      next.metadata.deletionTimestamp = formatTime(this.clock.now());
      next.status = { ...(next.status as object), phase: 'Terminating' };
      return this.store(r, key, next);
    }
    if (finalizers.size > 0) {
      if (!next.metadata.deletionTimestamp) next.metadata.deletionTimestamp = formatTime(this.clock.now());
      next.metadata.finalizers = [...finalizers];
      return this.store(r, key, next);
    }
    this.objects.delete(key);
    next.metadata.resourceVersion = String(++this.rv);
    this.emit('DELETED', r, next);
    return structuredClone(next);
  }

  async deleteCollection(r: ResourceInfo, namespace: string | undefined, opts?: DeleteOptions): Promise<void> {
    this.record({ verb: 'deletecollection', resource: r.plural, namespace });
    for (const o of this.all(r, namespace)) await this.delete(r, namespace, o.metadata.name ?? '', opts).catch(() => undefined);
  }
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

// The generic registry: create/get/update/delete of any resource in the resource table against the
// store, with Kubernetes' semantics (optimistic concurrency, no-op updates skipped, finalizers and
// graceful deletion, dryRun). Per-kind behaviour comes from the strategy and admission.
import { errors, qualifiedResource, R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { RevisionMismatchError, type Backend, type KeyValue } from '@kemu/store';
import type { Clock } from '../clock.ts';
import type { AdmissionAttributes, UserInfo } from '../admission/index.ts';
import type { Extensions } from '../extensions.ts';
import { decodeAsync, encodeAsync, objectKey, rawAsync, webhookConversionOf } from '../storage.ts';
import { mapStoreError } from '../store-errors.ts';
import { checkStorageName, prepareCreate, prepareUpdate, validateCreate, validateUpdate } from './prepare.ts';
import type { AllocationTxn, ServiceAllocator } from '../allocators/index.ts';

export interface WriteOptions {
  dryRun?: boolean;
  subresource?: string;
  /** Sets next.metadata.managedFields once the object is prepared (defaulted), before admission; cur is undefined on create. */
  managedFields?: (next: KubeObject, cur: KubeObject | undefined) => void;
  /** Admission warnings for the client land here (each becomes a Warning header). */
  warnings?: string[];
  /** The requesting user, for admission (undefined until requests are authenticated). */
  userInfo?: UserInfo;
  /** Admission audit annotations land here (the request's audit event). */
  annotate?: (key: string, value: string) => void;
}

function admissionExtras(o: WriteOptions): Pick<AdmissionAttributes, 'userInfo' | 'warn' | 'annotate'> {
  return { ...(o.userInfo ? { userInfo: o.userInfo } : {}), warn: (text) => o.warnings?.push(text), ...(o.annotate ? { annotate: o.annotate } : {}) };
}

/** A create or update of the main resource, as a write guard sees it (after mutating admission, before validation). */
export interface GuardedWrite {
  operation: 'CREATE' | 'UPDATE';
  resource: ResourceInfo;
  namespace: string;
  object: KubeObject;
  oldObject?: KubeObject;
  userInfo?: UserInfo;
}

export interface RegistryOptions {
  backend: Backend;
  clock: Clock;
  ext: Extensions;
  /** Called after each successful store write with its revision (the watch cache waits on it). */
  onWrite?: (revision: number) => void;
  /** ClusterIP/NodePort allocation for Services. */
  allocator?: ServiceAllocator;
  /**
   * Checks each create and main-resource update with the requesting user, after mutating admission and
   * before validation (where Kubernetes' policy-based RBAC storage checks escalation); throws StatusError to refuse.
   */
  writeGuard?: (w: GuardedWrite) => Promise<void>;
}

const MAX_RETRIES = 20;

export class Registry {
  constructor(readonly opts: RegistryOptions) {}

  get backend(): Backend {
    return this.opts.backend;
  }

  async getKV(r: ResourceInfo, namespace: string | undefined, name: string): Promise<KeyValue | undefined> {
    try {
      return await this.opts.backend.get(objectKey(r, namespace, name));
    } catch (e) {
      throw mapStoreError(e, r, name);
    }
  }

  async get(r: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject> {
    const kv = await this.getKV(r, namespace, name);
    if (!kv) throw errors.notFound(qualifiedResource(r), name);
    return decodeAsync(r, kv);
  }

  async create(r: ResourceInfo, obj: KubeObject, o: WriteOptions = {}): Promise<KubeObject> {
    return (await this.createWithJSON(r, obj, o)).object;
  }

  /**
   * create, also giving the stored JSON with its resourceVersion (when the object has apiVersion and kind,
   * so the text is the full reply): the REST reply reuses it instead of serializing the object again.
   */
  async createWithJSON(r: ResourceInfo, obj: KubeObject, o: WriteOptions = {}): Promise<{ object: KubeObject; json?: string }> {
    const strategy = this.opts.ext.strategyFor(r);
    prepareCreate(obj, r, strategy, this.opts.clock.now(), o.userInfo);
    o.managedFields?.(obj, undefined);
    const name = obj.metadata.name as string;
    const ns = obj.metadata.namespace;
    if (r.namespaced && !ns) throw errors.badRequest('the server could not find the requested resource: a namespace is required');
    const attrs: AdmissionAttributes = { operation: 'CREATE', resource: r, namespace: ns, name, object: obj, dryRun: !!o.dryRun, ...admissionExtras(o) };
    await this.opts.ext.admit(attrs);
    await this.opts.writeGuard?.({ operation: 'CREATE', resource: r, namespace: ns ?? '', object: obj, ...(o.userInfo ? { userInfo: o.userInfo } : {}) });
    validateCreate(obj, r, strategy);
    checkStorageName(name);
    await this.opts.ext.validateAdmission(attrs);
    if (o.dryRun) {
      const existing = await this.getKV(r, ns, name);
      if (existing) throw errors.alreadyExists(qualifiedResource(r), name);
      if (r === R.services && this.opts.allocator) await this.opts.allocator.allocateForCreate(obj, { dryRun: true });
      return { object: obj };
    }
    const txn = r === R.services && this.opts.allocator ? await this.allocateService(obj, ns, name) : undefined;
    try {
      const key = objectKey(r, ns, name);
      // A custom resource converted by its webhook is admitted and validated in the request version, stored converted.
      const value = await encodeAsync(r, obj);
      const kv = await this.opts.backend.create(key, value);
      this.opts.onWrite?.(kv.modRevision);
      obj.metadata.resourceVersion = String(kv.modRevision);
      await txn?.commit();
      if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return { object: obj };
      const json = await rawAsync(r, { key, value, modRevision: kv.modRevision });
      // The reply is the stored object converted back (what the webhook made of it).
      return { object: webhookConversionOf(r) ? (JSON.parse(json) as KubeObject) : obj, json };
    } catch (e) {
      await txn?.rollback();
      throw mapStoreError(e, r, name);
    }
  }

  /** PUT: a full replacement, conditional on metadata.resourceVersion when the body has one. */
  async update(r: ResourceInfo, namespace: string | undefined, name: string, next: KubeObject, o: WriteOptions = {}): Promise<KubeObject> {
    const wantRV = next.metadata.resourceVersion;
    return this.guaranteedUpdate(
      r,
      namespace,
      name,
      (cur) => {
        if (wantRV && wantRV !== cur.metadata.resourceVersion) throw errors.conflict(qualifiedResource(r), name);
        return structuredClone(next);
      },
      o,
    );
  }

  /**
   * Read-modify-write: tryUpdate gets the current object (a private copy) and returns the desired one;
   * retried on a concurrent write. Deletes the object when its last finalizer goes away during deletion.
   */
  async guaranteedUpdate(
    r: ResourceInfo,
    namespace: string | undefined,
    name: string,
    tryUpdate: (cur: KubeObject) => KubeObject | Promise<KubeObject>,
    o: WriteOptions = {},
  ): Promise<KubeObject> {
    const strategy = this.opts.ext.strategyFor(r);
    const key = objectKey(r, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.getKV(r, namespace, name);
      if (!kv) throw errors.notFound(qualifiedResource(r), name);
      const cur = await decodeAsync(r, kv);
      let next = await tryUpdate(structuredClone(cur));
      next = prepareUpdate(next, cur, r, strategy, o.subresource);
      o.managedFields?.(next, cur);
      const attrs: AdmissionAttributes = {
        operation: 'UPDATE',
        resource: r,
        subresource: o.subresource,
        namespace,
        name,
        object: next,
        oldObject: cur,
        dryRun: !!o.dryRun,
        ...admissionExtras(o),
      };
      await this.opts.ext.admit(attrs);
      if (o.subresource === undefined)
        await this.opts.writeGuard?.({ operation: 'UPDATE', resource: r, namespace: namespace ?? '', object: next, oldObject: cur, ...(o.userInfo ? { userInfo: o.userInfo } : {}) });
      validateUpdate(next, cur, r, strategy, o.subresource);
      await this.opts.ext.validateAdmission(attrs);
      next.metadata.resourceVersion = cur.metadata.resourceVersion;
      // A terminating namespace also waits for its spec.finalizers (emptied through /finalize).
      const specFinalizers = r === R.namespaces ? ((next.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? []) : [];
      const shouldDelete =
        cur.metadata.deletionTimestamp !== undefined &&
        (next.metadata.finalizers ?? []).length === 0 &&
        specFinalizers.length === 0 &&
        !cur.metadata.deletionGracePeriodSeconds;
      let txn: AllocationTxn | undefined;
      if (r === R.services && this.opts.allocator && !shouldDelete && o.subresource === undefined) {
        txn = await this.opts.allocator.allocateForUpdate(next, cur, { dryRun: !!o.dryRun });
      }
      const value = await encodeAsync(r, next);
      if (!shouldDelete && value === kv.value) {
        await txn?.rollback();
        return next; // a no-op update writes nothing
      }
      if (o.dryRun) {
        await txn?.rollback();
        return next;
      }
      try {
        const out = shouldDelete ? await this.opts.backend.delete(key, kv.modRevision) : await this.opts.backend.update(key, value, kv.modRevision);
        this.opts.onWrite?.(out.modRevision);
        next.metadata.resourceVersion = String(out.modRevision);
        if (shouldDelete) await this.released(r, cur);
        else await txn?.commit();
        if (!shouldDelete && webhookConversionOf(r)) return await decodeAsync(r, { key, value, modRevision: out.modRevision });
        return next;
      } catch (e) {
        await txn?.rollback();
        if (e instanceof RevisionMismatchError && attempt < MAX_RETRIES) continue;
        throw mapStoreError(e, r, name);
      }
    }
  }

  /**
   * A Service's ClusterIP/NodePorts for a create. A value held by a concurrent create of the same name
   * fails the allocation; when that other create has landed, the answer is AlreadyExists, as it would
   * have been had the two not overlapped.
   */
  private async allocateService(obj: KubeObject, ns: string | undefined, name: string): Promise<AllocationTxn> {
    const allocator = this.opts.allocator as ServiceAllocator;
    try {
      return await allocator.allocateForCreate(obj);
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'Invalid' && (await this.getKV(R.services, ns, name))) {
        throw errors.alreadyExists(qualifiedResource(R.services), name);
      }
      throw e;
    }
  }

  /** Frees what a deleted object held (a Service's ClusterIP and node ports). */
  private async released(r: ResourceInfo, obj: KubeObject): Promise<void> {
    if (r !== R.services || !this.opts.allocator) return;
    try {
      await this.opts.allocator.release(obj);
    } catch {
      // A leaked claim only wastes an address; the delete itself succeeded.
    }
  }

  /** Deletes now when possible; with finalizers or a grace period, marks the object for deletion instead. */
  async delete(r: ResourceInfo, namespace: string | undefined, name: string, opts: DeleteRequest, o: WriteOptions = {}): Promise<DeleteResult> {
    const key = objectKey(r, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.getKV(r, namespace, name);
      if (!kv) throw errors.notFound(qualifiedResource(r), name);
      const cur = await decodeAsync(r, kv);
      checkPreconditions(r, cur, opts);
      const attrs: AdmissionAttributes = { operation: 'DELETE', resource: r, namespace, name, oldObject: cur, dryRun: !!o.dryRun, ...admissionExtras(o) };
      await this.opts.ext.admit(attrs);
      await this.opts.ext.validateAdmission(attrs);
      const plan = opts.plan(cur, this.opts.clock.now());
      try {
        if (plan.kind === 'delete') {
          if (o.dryRun) return { object: cur, deleted: true };
          const out = await this.opts.backend.delete(key, kv.modRevision);
          this.opts.onWrite?.(out.modRevision);
          await this.released(r, cur);
          return { object: await decodeAsync(r, out), deleted: true };
        }
        const next = plan.object;
        const value = await encodeAsync(r, next);
        if (value === kv.value || o.dryRun) return { object: next, deleted: false };
        const out = await this.opts.backend.update(key, value, kv.modRevision);
        this.opts.onWrite?.(out.modRevision);
        next.metadata.resourceVersion = String(out.modRevision);
        return { object: next, deleted: false };
      } catch (e) {
        if (e instanceof RevisionMismatchError && attempt < MAX_RETRIES) continue;
        throw mapStoreError(e, r, name);
      }
    }
  }
}

export type DeletePlan = { kind: 'delete' } | { kind: 'mark'; object: KubeObject };

export interface DeleteRequest {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Decides, from the current object, whether to delete now or to update it (deletionTimestamp, finalizers). */
  plan(cur: KubeObject, now: number): DeletePlan;
}

export interface DeleteResult {
  object: KubeObject;
  deleted: boolean;
}

function checkPreconditions(r: ResourceInfo, cur: KubeObject, opts: DeleteRequest): void {
  const p = opts.preconditions;
  if (!p) return;
  const qr = qualifiedResource(r);
  const name = cur.metadata.name ?? '';
  if (p.uid && p.uid !== cur.metadata.uid) {
    throw errors.conflict(qr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${cur.metadata.uid ?? ''}`);
  }
  if (p.resourceVersion && p.resourceVersion !== cur.metadata.resourceVersion) {
    throw errors.conflict(
      qr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion ?? ''}`,
    );
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}

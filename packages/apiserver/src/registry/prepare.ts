// The generic create/update preparation every resource gets (Kubernetes' generic registry + the
// strategy hooks): system metadata on create, immutable metadata kept on update, status only through
// /status, generation bumped when spec changes, validation → 422.
import { errors, formatTime, type KubeObject, type ResourceInfo, type StatusCause } from '@kemu/api';
import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../authn/user.ts';
import type { ResourceStrategy } from '../strategy/types.ts';
import { isValidPathSegmentName } from '@kemu/api';

export function hasStatusSubresource(r: ResourceInfo): boolean {
  return r.subresources.some((s) => s.name === 'status');
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** Kubernetes' generateName suffix: 5 random characters from an alphabet without vowels. */
export function generateName(prefix: string): string {
  let s = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

export function prepareCreate(obj: KubeObject, r: ResourceInfo, strategy: ResourceStrategy | undefined, now: number, user?: UserInfo): void {
  const meta = obj.metadata;
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  if (!meta.name) {
    throw errors.invalid(r.group, r.kind, '', [{ reason: 'FieldValueRequired', message: 'name or generateName is required', field: 'metadata.name' }]);
  }
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTime(now);
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  // Only kinds whose strategy tracks it start at generation 1; the strategy sets (or clears) it.
  if (strategy?.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  strategy?.defaults?.(obj);
  strategy?.prepareForCreate?.(obj, user);
  if (strategy?.tracksGeneration) meta.generation = 1;
}

/**
 * The storage key function's check (Kubernetes' NoNamespaceKeyFunc/NamespaceKeyFunc), after validation: a name
 * must be one path segment. Kinds that validate names accept no other anyway; CertificateSigningRequests accept
 * any name but this. The store's keys cannot hold NUL either (etcd's can), so that is refused here too.
 */
export function checkStorageName(name: string): void {
  const errs = isValidPathSegmentName(name);
  if (name.includes('\0')) errs.push('may not contain NUL');
  if (errs.length > 0) throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${errs.join(';')}`);
}

/** Validation after mutating admission (Kubernetes' order: mutate, validate, validating admission). */
export function validateCreate(obj: KubeObject, r: ResourceInfo, strategy: ResourceStrategy | undefined): void {
  validateOrThrow(r, obj, strategy?.validate?.(obj));
}

export function validateUpdate(out: KubeObject, cur: KubeObject, r: ResourceInfo, strategy: ResourceStrategy | undefined, subresource: string | undefined): void {
  if (subresource === 'status') validateOrThrow(r, out, strategy?.validateStatusUpdate?.(out, cur));
  else if (subresource === 'ephemeralcontainers') validateOrThrow(r, out, strategy?.validateEphemeralContainersUpdate?.(out, cur));
  else if (subresource === undefined) validateOrThrow(r, out, strategy?.validateUpdate?.(out, cur) ?? strategy?.validate?.(out));
  else {
    const sub = strategy?.subresourceUpdates?.[subresource];
    if (sub) validateOrThrow(r, out, sub.validateUpdate(out, cur));
    else if (subresource === 'scale') validateOrThrow(r, out, strategy?.validateScaleUpdate?.(out, cur));
  }
}

/** generation tracks spec changes, for the kinds whose strategy tracks it. */
function specPart(obj: KubeObject): string {
  return JSON.stringify(obj.spec ?? null);
}

/** Prepares `next` (a full replacement of `cur`) in place, for the main resource or the subresource named. */
export function prepareUpdate(next: KubeObject, cur: KubeObject, r: ResourceInfo, strategy: ResourceStrategy | undefined, subresource: string | undefined): KubeObject {
  let out = next;
  if (subresource === 'status') {
    if (strategy?.prepareForStatusUpdate) {
      keepSystemMeta(out, cur);
      strategy.prepareForStatusUpdate(out, cur);
    } else {
      // Only status (and the labels/annotations controllers keep there) change through /status.
      const merged: KubeObject = structuredClone(cur);
      merged.status = out.status;
      if (out.metadata.labels) merged.metadata.labels = out.metadata.labels;
      if (out.metadata.annotations) merged.metadata.annotations = out.metadata.annotations;
      merged.metadata.resourceVersion = out.metadata.resourceVersion;
      out = merged;
    }
    keepSystemMeta(out, cur);
    return out;
  }
  if (subresource === 'ephemeralcontainers') {
    // Kubernetes' dropNonEphemeralContainerUpdates: the stored pod with only spec.ephemeralContainers taken.
    const merged: KubeObject = structuredClone(cur);
    const spec = (out.spec ?? {}) as Record<string, unknown>;
    merged.spec = { ...((cur.spec as object | undefined) ?? {}), ephemeralContainers: spec.ephemeralContainers };
    if (spec.ephemeralContainers === undefined) delete (merged.spec as Record<string, unknown>).ephemeralContainers;
    merged.metadata.resourceVersion = out.metadata.resourceVersion;
    strategy?.defaults?.(merged);
    keepSystemMeta(merged, cur);
    return merged;
  }
  keepSystemMeta(out, cur);
  const gen = cur.metadata.generation ?? 1;
  const sub = subresource !== undefined ? strategy?.subresourceUpdates?.[subresource] : undefined;
  if (sub) {
    sub.prepareForUpdate(out, cur);
    keepSystemMeta(out, cur);
    keepGeneration(out, cur);
    return out;
  }
  if (subresource !== undefined) {
    // Server-internal subresources (binding, scale, finalize) change exactly what their handler set.
    if (strategy?.tracksGeneration) out.metadata.generation = specPart(out) === specPart(cur) ? gen : gen + 1;
    else keepGeneration(out, cur);
    return out;
  }
  if (strategy?.defaults) strategy.defaults(out);
  if (hasStatusSubresource(r)) {
    if (cur.status === undefined) delete out.status;
    else out.status = cur.status;
  }
  strategy?.prepareForUpdate?.(out, cur);
  keepSystemMeta(out, cur);
  if (!strategy?.tracksGeneration) keepGeneration(out, cur);
  else if ((out.metadata.generation ?? gen) <= gen) out.metadata.generation = specPart(out) === specPart(cur) ? gen : gen + 1;
  return out;
}

/** Kinds without generation tracking keep whatever the stored object has (usually none). */
function keepGeneration(next: KubeObject, cur: KubeObject): void {
  if (cur.metadata.generation === undefined) delete next.metadata.generation;
  else next.metadata.generation = cur.metadata.generation;
}

/** Fields no update may change (Kubernetes resets them from the stored object). */
function keepSystemMeta(next: KubeObject, cur: KubeObject): void {
  const m = next.metadata;
  const c = cur.metadata;
  m.name = c.name;
  if (c.namespace !== undefined) m.namespace = c.namespace;
  m.uid = c.uid;
  m.creationTimestamp = c.creationTimestamp;
  if (c.deletionTimestamp !== undefined) m.deletionTimestamp = c.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (c.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = c.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (m.generateName === undefined && c.generateName !== undefined) m.generateName = c.generateName;
  next.apiVersion = cur.apiVersion;
  next.kind = cur.kind;
}

export function validateOrThrow(r: ResourceInfo, obj: KubeObject, causes: StatusCause[] | undefined): void {
  if (causes && causes.length > 0) throw errors.invalid(r.group, r.kind, obj.metadata.name ?? '', causes);
}

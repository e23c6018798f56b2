// ControllerRevisions for DaemonSets and StatefulSets (Kubernetes' pkg/controller/history): the revision's data
// is the strategic merge patch that puts the owner's template back ({"spec":{"template":{…,"$patch":"replace"}}}),
// which is also what `kubectl rollout history|undo` reads and applies. Revisions are matched by data, created with
// a collision count mixed into the hash, renumbered when an old one becomes current again (a rollback), and the
// oldest unused ones are deleted past revisionHistoryLimit.
import { R, labelSelectorAsSelector, type ControllerRevision, type KubeObject, type LabelSelector, type OwnerReference, type ParsedSelector, type PodTemplateSpec } from '@kemu/api';
import { isAlreadyExists, isNotFound, type RestClient } from '@kemu/client';
import { canonical, fnv32a, safeEncodeString } from './deployment/util.ts';
import { getControllerOf } from './pods.ts';

/** The label DaemonSet and StatefulSet pods carry naming their revision (apps.ControllerRevisionHashLabelKey). */
export const CONTROLLER_REVISION_HASH = 'controller-revision-hash';
/** The label a revision carries with its own hash (history.ControllerRevisionHashLabel). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

export interface TemplatePatch {
  spec: { template: Record<string, unknown> };
}

/** getPatch: the owner's template, to be applied with $patch: replace. */
export function templatePatch(template: PodTemplateSpec): TemplatePatch {
  return { spec: { template: { ...structuredClone(template), $patch: 'replace' } } };
}

/** The template a revision restores (ApplyRevision, for the template only). */
export function templateOfRevision(cr: ControllerRevision): PodTemplateSpec | undefined {
  const t = (cr.data as Partial<TemplatePatch> | undefined)?.spec?.template;
  if (!t) return undefined;
  const { $patch: _p, ...template } = t;
  return template as unknown as PodTemplateSpec;
}

/** HashControllerRevision: FNV-32a of the data (canonical JSON) and the collision count, safe-encoded. */
export function hashRevisionData(data: unknown, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonical(data)));
  if (collisionCount !== undefined && collisionCount !== 0) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(b, h);
  }
  return safeEncodeString(String(h));
}

export function equalRevisions(a: ControllerRevision, b: ControllerRevision): boolean {
  return canonical(a.data) === canonical(b.data);
}

/** The owner's revisions in its namespace, oldest revision first (history.SortControllerRevisions). */
export function ownedRevisions(all: readonly ControllerRevision[], owner: KubeObject): ControllerRevision[] {
  return all
    .filter((cr) => getControllerOf(cr)?.uid === owner.metadata.uid)
    .sort((a, b) => a.revision - b.revision || (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

export function nextRevision(revs: readonly ControllerRevision[]): number {
  return revs.length === 0 ? 1 : Math.max(...revs.map((r) => r.revision)) + 1;
}

export interface RevisionSpec {
  owner: KubeObject;
  ref: OwnerReference;
  /** The revision's name for a collision count (DaemonSets hash the template, StatefulSets the data). */
  name: (collisionCount: number) => string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  data: TemplatePatch;
  revision: number;
}

/**
 * Creates the revision; on a same-named revision with other data (a hash collision) bumps the collision count
 * and tries the next name. Returns the revision (existing when equal) and the collision count used.
 */
export async function createRevision(client: RestClient, spec: RevisionSpec, collisionCount: number): Promise<{ revision: ControllerRevision; collisionCount: number }> {
  const ns = spec.owner.metadata.namespace ?? '';
  for (let count = collisionCount; ; count++) {
    const cr: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: spec.name(count), namespace: ns, labels: { ...spec.labels }, ownerReferences: [spec.ref] },
      data: spec.data,
      revision: spec.revision,
    };
    if (spec.annotations && Object.keys(spec.annotations).length > 0) cr.metadata.annotations = { ...spec.annotations };
    try {
      return { revision: await client.create<ControllerRevision>(R.controllerrevisions, ns, cr), collisionCount: count };
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const existing = await client.get<ControllerRevision>(R.controllerrevisions, ns, cr.metadata.name ?? '');
      if (getControllerOf(existing)?.uid === spec.owner.metadata.uid && equalRevisions(existing, cr)) return { revision: existing, collisionCount: count };
    }
  }
}

/** Gives an existing revision a new number (it became the update revision again: a rollback). */
export async function renumberRevision(client: RestClient, cr: ControllerRevision, revision: number): Promise<ControllerRevision> {
  if (cr.revision === revision) return cr;
  return client.update<ControllerRevision>(R.controllerrevisions, cr.metadata.namespace, { ...structuredClone(cr), revision });
}

/** Deletes the oldest revisions not in live until at most limit non-live ones remain. */
export async function truncateHistory(client: RestClient, revs: readonly ControllerRevision[], live: ReadonlySet<string>, limit: number): Promise<void> {
  const old = revs.filter((r) => !live.has(r.metadata.name ?? ''));
  const extra = old.length - limit;
  for (const r of old.slice(0, Math.max(0, extra))) {
    try {
      await client.delete(R.controllerrevisions, r.metadata.namespace, r.metadata.name ?? '');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

/** A set's selector; an empty or invalid one selects nothing (Kubernetes refuses to act on it). */
export function setSelector(sel: LabelSelector | undefined): ParsedSelector | undefined {
  try {
    const parsed = labelSelectorAsSelector(sel);
    return parsed.nothing || parsed.requirements.length === 0 ? undefined : parsed;
  } catch {
    return undefined;
  }
}

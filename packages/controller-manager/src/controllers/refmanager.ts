// Claiming dependents by controller reference (Kubernetes' ControllerRefManager): an owner keeps the objects it
// controls that still match its selector, adopts matching orphans (after re-checking with a live GET that
// it is not being deleted) and releases the ones that no longer match.
import { StatusError, selectorMatches, type KubeObject, type OwnerReference, type ParsedSelector, type ResourceInfo } from '@kemu/api';
import { isNotFound, type RestClient } from '@kemu/client';
import { getControllerOf } from './pods.ts';

export interface ClaimOptions {
  client: RestClient;
  owner: KubeObject;
  /** The controllerRef to add when adopting. */
  ref: OwnerReference;
  selector: ParsedSelector;
  /** The dependents' resource (pods for a ReplicaSet, replicasets for a Deployment). */
  resource: ResourceInfo;
  /** Throws if the owner may not adopt (gone or being deleted), checked once, lazily, before the first adoption. */
  canAdopt: () => Promise<void>;
}

/** The objects the owner controls after adoption and release; throws the first adopt/release error after trying all. */
export async function claimObjects<T extends KubeObject>(objs: readonly T[], o: ClaimOptions): Promise<T[]> {
  const claimed: T[] = [];
  const errs: unknown[] = [];
  let adoptCheck: Promise<void> | undefined;
  const uid = o.owner.metadata.uid;
  for (const obj of objs) {
    const ref = getControllerOf(obj);
    const matches = selectorMatches(o.selector, obj.metadata.labels);
    try {
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches) {
          claimed.push(obj);
          continue;
        }
        if (o.owner.metadata.deletionTimestamp) continue;
        await release(o, obj);
        continue;
      }
      if (o.owner.metadata.deletionTimestamp || !matches || obj.metadata.deletionTimestamp) continue;
      adoptCheck ??= o.canAdopt();
      await adoptCheck;
      claimed.push(await adopt(o, obj));
    } catch (e) {
      if (isNotFound(e)) continue;
      errs.push(e);
    }
  }
  if (errs.length > 0) throw errs[0];
  return claimed;
}

async function adopt<T extends KubeObject>(o: ClaimOptions, obj: T): Promise<T> {
  const refs = [...(obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== o.ref.uid), o.ref];
  return o.client.patch<T>(o.resource, obj.metadata.namespace, obj.metadata.name ?? '', ownerPatch(obj, refs), 'merge');
}

async function release(o: ClaimOptions, obj: KubeObject): Promise<void> {
  const refs = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== o.owner.metadata.uid);
  try {
    await o.client.patch(o.resource, obj.metadata.namespace, obj.metadata.name ?? '', ownerPatch(obj, refs), 'merge');
  } catch (e) {
    // Gone already, or changed under us (the next sync sees the new state): nothing to release now.
    if (isNotFound(e)) return;
    if (e instanceof StatusError && e.code === 422) return;
    throw e;
  }
}

/** A merge patch that sets the whole ownerReferences list, guarded by the uid and resourceVersion we read. */
function ownerPatch(obj: KubeObject, refs: OwnerReference[]): unknown {
  return {
    metadata: {
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      ownerReferences: refs.length > 0 ? refs : null,
    },
  };
}

/** canAdopt for owners: a live GET must show the same uid and no deletionTimestamp (RecheckDeletionTimestamp). */
export function recheckOwner(client: RestClient, resource: ResourceInfo, owner: KubeObject): () => Promise<void> {
  return async () => {
    const fresh = await client.get(resource, owner.metadata.namespace, owner.metadata.name ?? '');
    const what = `${resource.kind} ${owner.metadata.namespace ?? ''}/${owner.metadata.name ?? ''}`;
    if (fresh.metadata.uid !== owner.metadata.uid)
      throw new Error(`original ${what} is gone: got uid ${fresh.metadata.uid ?? ''}, wanted ${owner.metadata.uid ?? ''}`);
    if (fresh.metadata.deletionTimestamp) throw new Error(`${what} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
  };
}

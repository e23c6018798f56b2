// Deleting a CustomResourceDefinition deletes its objects first (apiextensions-apiserver's finalizer
// controller): a CRD marked for deletion with the customresourcecleanup finalizer has its objects deleted,
// condition Terminating InstanceDeletionInProgress while they remain, and the finalizer removed once none
// is left (which deletes the CRD). Every replica runs it after each watch batch; concurrent runs only race
// to the same deletes, and conflicts and NotFound are expected.
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Registry } from '../registry/registry.ts';
import { CRD_CLEANUP_FINALIZER, deleteRequest } from '../registry/delete-plan.ts';
import type { Cacher } from '../watch/cacher.ts';
import { customResourceInfos, customStorageInfo } from './resource-info.ts';
import { reconcileNames } from './naming-controller.ts';
import { asArray, asRecord, isRecord } from '../validation/field.ts';

function terminating(crd: KubeObject): boolean {
  return crd.metadata.deletionTimestamp !== undefined && (crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER);
}

async function cleanUp(crd: KubeObject, cacher: Cacher, registry: Registry): Promise<void> {
  const name = crd.metadata.name ?? '';
  // The storage version, as Kubernetes' finalizer deletes through its storage: nothing to convert (by a webhook).
  const info = customStorageInfo(crd) ?? customResourceInfos(crd)[0];
  const left = info ? cacher.cache(info).snapshot(undefined, undefined).map((o) => o.object) : [];
  if (info && left.length > 0) {
    const inProgress = (asArray(asRecord(crd.status)?.conditions) ?? []).some((c) => isRecord(c) && c.type === 'Terminating' && c.reason === 'InstanceDeletionInProgress');
    if (!inProgress)
      await registry.guaranteedUpdate(
        R.customresourcedefinitions,
        undefined,
        name,
        (cur) => {
          const status = (asRecord(cur.status) ?? {}) as Record<string, unknown>;
          const conds = (asArray(status.conditions) ?? []).filter((c) => !(isRecord(c) && c.type === 'Terminating'));
          conds.push({ type: 'Terminating', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
          cur.status = { ...status, conditions: conds };
          return cur;
        },
        { subresource: 'status' },
      );
    for (const o of left) {
      if (o.metadata.deletionTimestamp) continue;
      await registry.delete(info, o.metadata.namespace, o.metadata.name ?? '', deleteRequest(info, {})).catch(ignoreExpected);
    }
    return; // the next batch (the deletes' own events) looks again
  }
  await registry.guaranteedUpdate(R.customresourcedefinitions, undefined, name, (cur) => {
    cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    return cur;
  });
}

function ignoreExpected(e: unknown): void {
  if (e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict')) return;
  throw e;
}

/** Runs the cleanup (and the naming check of CRDs waiting for names, crd/naming-controller.ts) after every watch batch that may have changed something; returns a stop function. */
export function startCustomResourceCleanup(cacher: Cacher, registry: Registry, logger: Logger): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (!cacher.isReady()) break;
        const all = cacher.cache(R.customresourcedefinitions).snapshot(undefined, undefined).map((o) => o.object);
        for (const crd of all.filter(terminating)) await cleanUp(crd, cacher, registry).catch((e: unknown) => ignoreExpected(e));
        await reconcileNames(all, registry);
      } while (again);
    } catch (e) {
      logger.error({ err: e instanceof Error ? e.message : String(e) }, 'custom resource cleanup failed');
    } finally {
      running = false;
    }
  };
  const f = () => void run();
  cacher.onBatch.add(f);
  return () => cacher.onBatch.delete(f);
}

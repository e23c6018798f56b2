// Deleting a CustomResourceDefinition deletes its objects first (apiextensions-apiserver's finalizer
// controller): a CRD marked for deletion with the customresourcecleanup finalizer gets condition Terminating
// InstanceDeletionInProgress, has its objects deleted (InstanceDeletionFailed `could not issue all deletes: …`
// when a delete fails), and once none is left Terminating False InstanceDeletionCompleted `removed all
// instances` (NeverEstablished `resource was never established` for one never served) with the finalizer removed,
// which deletes the CRD. Every replica runs it after each watch batch; concurrent runs only race to the same
// deletes, and conflicts and NotFound are expected.
import { formatTime, R, StatusError, type KubeObject } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { Registry } from '../registry/registry.ts';
import { CRD_CLEANUP_FINALIZER, deleteRequest } from '../registry/delete-plan.ts';
import type { Cacher } from '../watch/cacher.ts';
import { customResourceInfos, customStorageInfo } from './resource-info.ts';
import { reconcileNames } from './naming-controller.ts';
import { conditionOf, setCondition } from '../strategy/apiextensions.ts';
import { isEstablished } from '../validation/apiextensions.ts';

function terminating(crd: KubeObject): boolean {
  return crd.metadata.deletionTimestamp !== undefined && (crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER);
}

type Terminating = { status: 'True' | 'False'; reason: string; message: string };

const setTerminating = (registry: Registry, name: string, t: Terminating, removeFinalizer = false): Promise<KubeObject> =>
  registry.guaranteedUpdate(
    R.customresourcedefinitions,
    undefined,
    name,
    (cur) => {
      setCondition(cur, { type: 'Terminating', ...t }, formatTime(Date.now()));
      if (removeFinalizer) cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return cur;
    },
    // As Kubernetes, the finalizer goes with the status write (a CRD's /status may change its finalizers).
    { subresource: 'status' },
  );

async function cleanUp(crd: KubeObject, cacher: Cacher, registry: Registry): Promise<void> {
  const name = crd.metadata.name ?? '';
  // The storage version, as Kubernetes' finalizer deletes through its storage: nothing to convert (by a webhook).
  const info = customStorageInfo(crd) ?? customResourceInfos(crd)[0];
  if (!info || !isEstablished(crd)) {
    await setTerminating(registry, name, { status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }, true);
    return;
  }
  if (conditionOf(crd, 'Terminating')?.reason === 'InstanceDeletionPending')
    await setTerminating(registry, name, { status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
  const left = cacher.cache(info).snapshot(undefined, undefined).map((o) => o.object);
  if (left.length > 0) {
    const failed: string[] = [];
    for (const o of left) {
      if (o.metadata.deletionTimestamp) continue;
      await registry.delete(info, o.metadata.namespace, o.metadata.name ?? '', deleteRequest(info, {})).catch((e: unknown) => {
        if (!(e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) failed.push(e instanceof Error ? e.message : String(e));
      });
    }
    if (failed.length > 0) await setTerminating(registry, name, { status: 'True', reason: 'InstanceDeletionFailed', message: `could not issue all deletes: ${failed.length === 1 ? failed[0] : `[${failed.join(', ')}]`}` });
    return; // the next batch (the deletes' own events) looks again
  }
  await setTerminating(registry, name, { status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, true);
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

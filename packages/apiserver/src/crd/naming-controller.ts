// The naming check again for CRDs whose requested names are not all accepted (apiextensions-apiserver's naming
// controller requeues a group's CRDs when one releases names): after a watch batch, a CRD whose spec.names
// differ from its accepted names gets its names and conditions recomputed, and its status written when they
// changed — so a CRD refused for a name another CRD held is accepted and Established once that CRD is gone.
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';
import { asRecord, asString, jsonEqual } from '../validation/field.ts';
import { knownDefinitions } from './definitions.ts';
import { calculateNames, namesInUse } from './naming.ts';
import { acceptNames, namesPending } from '../strategy/apiextensions.ts';

function changes(crd: KubeObject): boolean {
  const group = asString(asRecord(crd.spec)?.group) ?? '';
  const naming = calculateNames(crd, namesInUse(knownDefinitions(), group, crd.metadata.name ?? ''));
  const cond = ((asRecord(crd.status)?.conditions as unknown[] | undefined) ?? []).map(asRecord).find((c) => c?.type === 'NamesAccepted');
  return !jsonEqual(naming.acceptedNames, asRecord(crd.status)?.acceptedNames) || cond?.status !== naming.status || cond.reason !== naming.reason;
}

export async function reconcileNames(crds: readonly KubeObject[], registry: Registry): Promise<void> {
  for (const crd of crds) {
    if (crd.metadata.deletionTimestamp || !namesPending(crd) || !changes(crd)) continue;
    await registry
      .guaranteedUpdate(
        R.customresourcedefinitions,
        undefined,
        crd.metadata.name ?? '',
        (cur) => {
          acceptNames(cur, cur);
          return cur;
        },
        { subresource: 'status' },
      )
      .catch((e: unknown) => {
        if (!(e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) throw e;
      });
  }
}

// The naming and establishing controllers of apiextensions-apiserver, run by every replica after each watch batch
// over the CRDs its cache holds. A CRD whose spec.names are not its accepted names gets a naming decision
// (crd/naming.ts): accepted names, NamesAccepted, and Established False `Installing` (or `NotAccepted`); a CRD
// whose names are accepted then becomes Established True `InitialNamesAccepted` and is served. A decision is
// written only if the CRD is still the one the snapshot held (same resourceVersion), which with naming.ts'
// log-order rule makes replicas agree; a stale one is dropped and the next batch decides again. A CRD refused
// for a name another CRD held is thus accepted once that CRD is gone.
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';
import { asRecord, jsonEqual } from '../validation/field.ts';
import { calculateNames, namesInUse, namesPending, type NamingResult } from './naming.ts';
import { applyNaming, conditionOf, establish, establishingDue } from '../strategy/apiextensions.ts';

/** Whether writing the decision would change anything. */
function changes(crd: KubeObject, naming: NamingResult): boolean {
  const cond = conditionOf(crd, 'NamesAccepted');
  return !jsonEqual(naming.acceptedNames, asRecord(crd.status)?.acceptedNames) || cond?.status !== naming.status || cond.reason !== naming.reason || cond.message !== naming.message;
}

/** A decision made from a snapshot no longer applies: the CRD changed since. */
const stale = (name: string) => new StatusError('Conflict', 'the object has been modified; please apply your changes to the latest version and try again', { name });

const expected = (e: unknown): void => {
  if (!(e instanceof StatusError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) throw e;
};

/** The naming decision for crd against the snapshot it belongs to. */
export function decideNames(crd: KubeObject, snapshot: readonly KubeObject[]): NamingResult {
  return calculateNames(crd, namesInUse(snapshot, crd));
}

export async function reconcileNames(crds: readonly KubeObject[], registry: Registry): Promise<void> {
  for (const crd of crds) {
    if (crd.metadata.deletionTimestamp) continue;
    const name = crd.metadata.name ?? '';
    let current: KubeObject | undefined = crd;
    if (namesPending(crd) || !conditionOf(crd, 'NamesAccepted')) {
      const naming = decideNames(crd, crds);
      if (!changes(crd, naming)) current = crd;
      else
        current = await registry
          .guaranteedUpdate(
            R.customresourcedefinitions,
            undefined,
            name,
            (cur) => {
              if (cur.metadata.resourceVersion !== crd.metadata.resourceVersion) throw stale(name);
              applyNaming(cur, naming);
              return cur;
            },
            { subresource: 'status' },
          )
          .catch((e: unknown) => void expected(e));
    }
    // Kubernetes' establishing controller follows as soon as it sees the names accepted; kemu at once.
    if (current && establishingDue(current))
      await registry
        .guaranteedUpdate(
          R.customresourcedefinitions,
          undefined,
          name,
          (cur) => {
            if (!establishingDue(cur)) throw stale(name);
            establish(cur);
            return cur;
          },
          { subresource: 'status' },
        )
        .catch(expected);
  }
}

// The manager's own client provisions a controller's ServiceAccount (kube-system/<name>) when it is missing,
// as Kubernetes' clientbuilder getOrCreateServiceAccount does: get it, else make sure the namespace exists
// (tolerating errors: the manager may not create namespaces), create it, and re-read it on a create race.
import { R, type KubeObject } from '@kemu/api';
import { isAlreadyExists, isNotFound, type RestClient } from '@kemu/client';
import type { Logger } from '@kemu/base';

export async function getOrCreateServiceAccount(core: RestClient, namespace: string, name: string, logger: Logger): Promise<KubeObject> {
  try {
    return await core.get(R.serviceaccounts, namespace, name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    await core.get(R.namespaces, undefined, namespace);
  } catch (e) {
    if (isNotFound(e)) {
      await core.create(R.namespaces, undefined, { metadata: { name: namespace } }).catch((err: unknown) => {
        if (!isAlreadyExists(err)) logger.info({ namespace, err: String(err) }, 'create non-exist namespace');
      });
    }
  }
  try {
    return await core.create(R.serviceaccounts, namespace, { metadata: { namespace, name } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    return core.get(R.serviceaccounts, namespace, name);
  }
}

// ServiceAccountLookups backed by the registry (a missing object is undefined, any other failure propagates and
// fails the authentication). A watch-cache-backed one would keep the same contract.
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { Registry } from '../registry/registry.ts';
import type { ServiceAccountLookups } from './service-account.ts';

export function registryLookups(registry: Pick<Registry, 'get'>): ServiceAccountLookups {
  const get = async (r: ResourceInfo, ns: string | undefined, name: string): Promise<KubeObject | undefined> => {
    try {
      return await registry.get(r, ns, name);
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'NotFound') return undefined;
      throw e;
    }
  };
  return {
    getServiceAccount: (ns, name) => get(R.serviceaccounts, ns, name),
    getSecret: (ns, name) => get(R.secrets, ns, name),
    getPod: (ns, name) => get(R.pods, ns, name),
    getNode: (name) => get(R.nodes, undefined, name),
  };
}

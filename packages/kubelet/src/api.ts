// The part of @kemu/client's RestClient the kubelet uses (tests hand in a fake with the same shape).
import type { RestClient } from '@kemu/client';

export type KubeApi = Pick<RestClient, 'get' | 'create' | 'update' | 'patch' | 'delete' | 'createSubresource'>;

/** A node's API whose client is not there yet (its certificate is being issued): every call waits for it. */
export function deferredKubeApi(client: Promise<KubeApi>): KubeApi {
  return {
    get: (async (...a: Parameters<KubeApi['get']>) => (await client).get(...a)) as KubeApi['get'],
    create: (async (...a: Parameters<KubeApi['create']>) => (await client).create(...a)) as KubeApi['create'],
    update: (async (...a: Parameters<KubeApi['update']>) => (await client).update(...a)) as KubeApi['update'],
    patch: (async (...a: Parameters<KubeApi['patch']>) => (await client).patch(...a)) as KubeApi['patch'],
    delete: (async (...a: Parameters<KubeApi['delete']>) => (await client).delete(...a)) as KubeApi['delete'],
    createSubresource: (async (...a: Parameters<KubeApi['createSubresource']>) => (await client).createSubresource(...a)) as KubeApi['createSubresource'],
  };
}

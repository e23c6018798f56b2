// The part of @kemu/client's RestClient the kubelet uses (tests hand in a fake with the same shape).
import type { RestClient } from '@kemu/client';

export type KubeApi = Pick<RestClient, 'get' | 'create' | 'update' | 'patch' | 'delete' | 'createSubresource'>;

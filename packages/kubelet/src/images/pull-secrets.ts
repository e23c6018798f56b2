// Reads a pod's imagePullSecrets through the node's client (the Node authorizer lets a node read the Secrets
// its pods name), as the kubelet's getPullSecretsForPod does on each sync: the registries they hold
// credentials for, and the names that could not be read (for FailedToRetrieveImagePullSecret).
import { R, StatusError, type Secret } from '@kemu/api';
import type { KubeApi } from '../api.ts';
import { secretRegistries, type RegistryAuth } from './credentials.ts';

export interface PullSecrets {
  auth: RegistryAuth;
  missing: string[];
}

export async function readPullSecrets(client: Pick<KubeApi, 'get'>, namespace: string, names: readonly string[]): Promise<PullSecrets> {
  const auth: { host: string; path: string }[] = [];
  const missing: string[] = [];
  await Promise.all(
    names.map(async (name) => {
      try {
        auth.push(...secretRegistries(await client.get<Secret>(R.secrets, namespace, name)));
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
        missing.push(name);
      }
    }),
  );
  return { auth, missing: names.filter((n) => missing.includes(n)) };
}

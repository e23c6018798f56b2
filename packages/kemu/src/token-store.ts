// The bootstrap token Secrets through the API, as kubeadm's token phase reads and writes them (`kemu token`, `kemu join`).
import { R, StatusError, type KubeObject } from '@kemu/api';
import type { RestClient } from '@kemu/client';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, BootstrapTokenError, bootstrapTokenFromSecret, bootstrapTokenSecret, parseBootstrapToken, type BootstrapToken } from './bootstrap-token.ts';

/** kubeadm's CreateNewTokens: a token whose Secret exists already is refused. */
export async function createToken(c: RestClient, t: BootstrapToken): Promise<void> {
  const { id } = parseBootstrapToken(t.token);
  try {
    await c.create(R.secrets, 'kube-system', bootstrapTokenSecret(t));
  } catch (e) {
    if (e instanceof StatusError && e.reason === 'AlreadyExists') throw new BootstrapTokenError(`a token with id "${id}" already exists`);
    throw e;
  }
}

export async function listTokens(c: RestClient): Promise<{ tokens: BootstrapToken[]; errors: string[] }> {
  const list = await c.list<KubeObject>(R.secrets, 'kube-system', { fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` });
  const tokens: BootstrapToken[] = [];
  const errors: string[] = [];
  for (const s of list.items) {
    try {
      tokens.push(bootstrapTokenFromSecret(s));
    } catch (e) {
      if (!(e instanceof BootstrapTokenError)) throw e;
      errors.push(e.message);
    }
  }
  return { tokens, errors };
}

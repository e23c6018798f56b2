// TLS bootstrapping for the lab's kubelets, as seed 003 section 8 sets it up: once an apiserver answers, kemu (as
// the admin) makes the bootstrap token Secret and the three ClusterRoleBindings of bootstrap.secret.yaml, and kubeadm's
// kube-public/cluster-info; it writes DIR/bootstrap-kubelet.kubeconfig as the seed's `kubectl config` commands do.
// It also binds the apiservers' kubelet client identity to system:kubelet-api-admin (bootstrap-objects.ts).
// Every call is idempotent: a restart keeps the token (read back from the kubeconfig) while its Secret is valid.
import fs from 'node:fs';
import { R, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { RestClient, loadClientConfig, parseKubeconfig } from '@kemu/client';
import { tokenKubeconfigYaml } from '@kemu/pki';
import {
  BootstrapTokenError,
  bootstrapTokenFromSecret,
  bootstrapTokenSecret,
  bootstrapTokenSecretName,
  generateBootstrapToken,
  parseBootstrapToken,
  seedBootstrapToken,
} from './bootstrap-token.ts';
import { bootstrapBindings, clusterInfoObjects, kubeletApiBinding } from './bootstrap-objects.ts';
import { labPkiFiles, writeIfChanged } from './lab-pki.ts';
import { standardStorageClass } from './storage-class.ts';

/** Seed 003's names: `kubectl config set-credentials tls-bootstrap-token-user`, context tls-bootstrap-token-user@kubernetes. */
export const BOOTSTRAP_USER = 'tls-bootstrap-token-user';

/** The bootstrap kubeconfig of seed 003 8.1 for a token. */
export function bootstrapKubeconfigYaml(server: string, caPem: string, token: string): string {
  return tokenKubeconfigYaml({ server, caPem, user: BOOTSTRAP_USER, token, cluster: 'kubernetes' });
}

/** The token in a bootstrap kubeconfig, when the file is there and holds a well-formed one. */
export function readBootstrapToken(file: string): string | undefined {
  try {
    const token = parseKubeconfig(fs.readFileSync(file, 'utf8'), '.').token;
    if (!token) return undefined;
    parseBootstrapToken(token);
    return token;
  } catch {
    return undefined;
  }
}

/** A REST client acting as the lab's admin (DIR/kubeconfig: CN kubernetes-admin, O system:masters). */
export function labAdminClient(dataDir: string): RestClient {
  return new RestClient(loadClientConfig({ kubeconfig: labPkiFiles(dataDir).userKubeconfig, userAgent: 'kemu' }));
}

function isStatus(e: unknown, reason: string): boolean {
  return e instanceof StatusError && e.reason === reason;
}

async function getOrUndefined(client: RestClient, r: ResourceInfo, ns: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(r, ns, name);
  } catch (e) {
    if (isStatus(e, 'NotFound')) return undefined;
    throw e;
  }
}

/** Creates the object unless one of that name exists (a user's edit is theirs); true when created. */
async function createIfMissing(client: RestClient, r: ResourceInfo, obj: KubeObject): Promise<boolean> {
  try {
    await client.create(r, obj.metadata.namespace, obj);
    return true;
  } catch (e) {
    if (isStatus(e, 'AlreadyExists')) return false;
    throw e;
  }
}

export interface LabBootstrapOptions {
  dataDir: string;
  /** The server the kubelets reach (the bootstrap kubeconfig's and cluster-info's). */
  server: string;
}

export interface LabBootstrapResult {
  token: string;
  /** "Secret kube-system/bootstrap-token-abcdef", … — what this call created or replaced. */
  made: string[];
}

/** Makes (or checks) every object and file TLS bootstrapping needs; the admin client is the caller's. */
export async function ensureLabBootstrap(client: RestClient, o: LabBootstrapOptions): Promise<LabBootstrapResult> {
  const files = labPkiFiles(o.dataDir);
  const caPem = fs.readFileSync(files.ca, 'utf8');
  const made: string[] = [];
  let token = readBootstrapToken(files.bootstrapKubeconfig);
  if (token) {
    const { id } = parseBootstrapToken(token);
    const secret = await getOrUndefined(client, R.secrets, 'kube-system', bootstrapTokenSecretName(id));
    if (secret) {
      // Kept while it still authenticates (the same secret, not expired); else a new token.
      let ok = false;
      try {
        const t = bootstrapTokenFromSecret(secret);
        ok = t.token === token && (!t.expires || Date.parse(t.expires) > Date.now()) && t.usages.includes('authentication');
      } catch (e) {
        if (!(e instanceof BootstrapTokenError)) throw e;
      }
      if (!ok) token = undefined;
    } else if (await createIfMissing(client, R.secrets, bootstrapTokenSecret(seedBootstrapToken(token)))) {
      made.push(`Secret kube-system/${bootstrapTokenSecretName(id)}`);
    }
  }
  if (!token) {
    token = generateBootstrapToken();
    await client.create(R.secrets, 'kube-system', bootstrapTokenSecret(seedBootstrapToken(token)));
    made.push(`Secret kube-system/${bootstrapTokenSecretName(parseBootstrapToken(token).id)}`);
  }
  for (const b of [...bootstrapBindings(), kubeletApiBinding()]) if (await createIfMissing(client, R.clusterrolebindings, b)) made.push(`ClusterRoleBinding ${b.metadata.name}`);
  const info = clusterInfoObjects(o.server, caPem);
  const existing = await getOrUndefined(client, R.configmaps, 'kube-public', 'cluster-info');
  if (!existing) {
    await client.create(R.configmaps, 'kube-public', info.configMap);
    made.push('ConfigMap kube-public/cluster-info');
  } else if ((existing.data as Record<string, string> | undefined)?.kubeconfig !== (info.configMap.data as Record<string, string>).kubeconfig) {
    // The CA or server changed: kubeconfig replaced, bootstrapsigner's jws-kubeconfig-<id> keys kept (it re-signs).
    await client.update(R.configmaps, 'kube-public', { ...existing, data: { ...(existing.data as Record<string, string>), kubeconfig: (info.configMap.data as Record<string, string>).kubeconfig } });
    made.push('ConfigMap kube-public/cluster-info (updated)');
  }
  if (await createIfMissing(client, R.roles, info.role)) made.push(`Role kube-public/${info.role.metadata.name}`);
  if (await createIfMissing(client, R.rolebindings, info.roleBinding)) made.push(`RoleBinding kube-public/${info.roleBinding.metadata.name}`);
  if (await createIfMissing(client, R.storageclasses, standardStorageClass())) made.push('StorageClass standard');
  writeIfChanged(files.bootstrapKubeconfig, bootstrapKubeconfigYaml(o.server, caPem, token));
  return { token, made };
}

// serviceaccount-token-controller (Kubernetes' legacy TokensController; needs --service-account-private-key-file):
// fills each Secret of type kubernetes.io/service-account-token (annotation kubernetes.io/service-account.name,
// optionally .uid) with `token` — a legacy JWT (iss kubernetes/serviceaccount) signed by the key — `ca.crt`
// (--root-ca-file, else the kubeconfig's CA) and `namespace`; deletes such Secrets whose ServiceAccount is gone
// and drops a deleted Secret from its ServiceAccount's `secrets`. It runs with the manager's own client.
import { R, type Secret, type ServiceAccount } from '@kemu/api';
import { isConflict, isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import { readSigningKey, type SigningKey } from '@kemu/pki';
import { legacyClaims, signClaims } from '@kemu/pki';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';
import { rootCA } from './root-ca.ts';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_KEY = 'kubernetes.io/service-account.uid';

interface SecretKey {
  namespace: string;
  name: string;
  uid: string;
  saName: string;
  saUID: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const decoded = (s: Secret, key: string) => Buffer.from(s.data?.[key] ?? '', 'base64').toString('utf8');

/** IsServiceAccountToken: a token Secret naming this ServiceAccount (and its uid, when the Secret gives one). */
function isTokenFor(s: Secret, sa: { name: string; uid: string }): boolean {
  if (s.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return false;
  const uid = s.metadata.annotations?.[SERVICE_ACCOUNT_UID_KEY] ?? '';
  return s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY] === sa.name && (uid === '' || uid === sa.uid);
}

export class TokensController implements Controller {
  readonly name = 'serviceaccount-token-controller';
  private readonly accounts: SharedInformer<ServiceAccount>;
  private readonly secrets: SharedInformer<Secret>;
  private readonly saWorker: KeyedWorker;
  private readonly secretWorker: KeyedWorker;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly signer: SigningKey,
    private readonly ca: string,
  ) {
    this.accounts = ctx.informers.informerFor<ServiceAccount>(R.serviceaccounts);
    this.secrets = ctx.informers.informerFor<Secret>(R.secrets);
    const workers = ctx.options['concurrent-serviceaccount-token-syncs'];
    this.saWorker = new KeyedWorker(ctx, { name: 'serviceaccount_tokens_service', workers, sync: (k) => this.syncServiceAccount(k) }).waitFor(this.accounts, this.secrets);
    this.secretWorker = new KeyedWorker(ctx, { name: 'serviceaccount_tokens_secret', workers, sync: (k) => this.syncSecret(k) }).waitFor(this.accounts, this.secrets);
    const saKey = (sa: ServiceAccount) => this.saWorker.add([sa.metadata.namespace, sa.metadata.name, sa.metadata.uid].join('/'));
    this.accounts.addEventHandler({ onAdd: saKey, onUpdate: (_o, sa) => saKey(sa), onDelete: (obj) => saKey(unwrapDeleted(obj)) });
    const secretKey = (s: Secret) => {
      if (s.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
      const saName = s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY] ?? '';
      if (saName === '') return; // parseSecretQueueKey refuses it: nothing to do
      const key: SecretKey = { namespace: s.metadata.namespace ?? '', name: s.metadata.name ?? '', uid: s.metadata.uid ?? '', saName, saUID: s.metadata.annotations?.[SERVICE_ACCOUNT_UID_KEY] ?? '' };
      this.secretWorker.add(JSON.stringify(key));
    };
    this.secrets.addEventHandler({ onAdd: secretKey, onUpdate: (_o, s) => secretKey(s), onDelete: (obj) => secretKey(unwrapDeleted(obj)) });
  }

  async run(): Promise<void> {
    await Promise.all([this.saWorker.run(), this.secretWorker.run()]);
  }

  private cachedAccount(namespace: string, name: string, uid: string): ServiceAccount | undefined {
    const sa = this.accounts.store.get(`${namespace}/${name}`);
    return sa && (uid === '' || sa.metadata.uid === uid) ? sa : undefined;
  }

  /** getServiceAccount with fetchOnCacheMiss: the cache, then a live GET (a new ServiceAccount may not be cached yet). */
  private async account(namespace: string, name: string, uid: string): Promise<ServiceAccount | undefined> {
    const cached = this.cachedAccount(namespace, name, uid);
    if (cached) return cached;
    try {
      const sa = await this.ctx.client.get<ServiceAccount>(R.serviceaccounts, namespace, name);
      return uid === '' || sa.metadata.uid === uid ? sa : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.ctx.client.delete(R.secrets, namespace, name, uid ? { preconditions: { uid } } : undefined);
    } catch (e) {
      // Gone already, or a new Secret took the name (UID precondition failed).
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  private async syncServiceAccount(key: string): Promise<void> {
    const [namespace = '', name = '', uid = ''] = key.split('/');
    if (this.cachedAccount(namespace, name, uid)) return;
    // The ServiceAccount is gone: so are its tokens.
    for (const s of this.secrets.store.list()) {
      if (s.metadata.namespace === namespace && isTokenFor(s, { name, uid })) await this.deleteToken(namespace, s.metadata.name ?? '', s.metadata.uid ?? '');
    }
  }

  private async syncSecret(raw: string): Promise<void> {
    const k = JSON.parse(raw) as SecretKey;
    const cached = this.secrets.store.get(`${k.namespace}/${k.name}`);
    const secret = cached && (k.uid === '' || cached.metadata.uid === k.uid) ? cached : undefined;
    if (!secret) {
      if (this.cachedAccount(k.namespace, k.saName, k.saUID)) await this.removeReference(k);
      return;
    }
    const sa = await this.account(k.namespace, k.saName, k.saUID);
    if (!sa) return this.deleteToken(k.namespace, k.name, k.uid);
    await this.fill(sa, secret);
  }

  private needs(s: Secret): { ca: boolean; namespace: boolean; token: boolean } {
    return { ca: this.ca !== '' && decoded(s, 'ca.crt') !== this.ca, namespace: !s.data?.namespace, token: !s.data?.token };
  }

  /** generateTokenIfNeeded: from a live copy, only when the cache is current, writing only what is missing. */
  private async fill(sa: ServiceAccount, cached: Secret): Promise<void> {
    let n = this.needs(cached);
    if (!n.ca && !n.namespace && !n.token) return;
    let live: Secret;
    try {
      live = await this.ctx.client.get<Secret>(R.secrets, cached.metadata.namespace, cached.metadata.name ?? '');
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    // A newer version is on its way to the cache; its update event brings us back.
    if (live.metadata.resourceVersion !== cached.metadata.resourceVersion) return;
    n = this.needs(live);
    if (!n.ca && !n.namespace && !n.token) return;
    const data = { ...live.data };
    if (n.ca) data['ca.crt'] = b64(this.ca);
    if (n.namespace) data.namespace = b64(live.metadata.namespace ?? '');
    if (n.token) data.token = b64(await signClaims(this.signer, legacyClaims(sa, live.metadata.name ?? '')));
    const annotations = { ...live.metadata.annotations, [SERVICE_ACCOUNT_NAME_KEY]: sa.metadata.name ?? '', [SERVICE_ACCOUNT_UID_KEY]: sa.metadata.uid ?? '' };
    try {
      await this.ctx.client.update<Secret>(R.secrets, live.metadata.namespace, { ...live, metadata: { ...live.metadata, annotations }, data });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  /** removeSecretReference: a deleted token Secret leaves its ServiceAccount's `secrets` (conflicts retried). */
  private async removeReference(k: SecretKey): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      let sa: ServiceAccount;
      try {
        sa = await this.ctx.client.get<ServiceAccount>(R.serviceaccounts, k.namespace, k.saName);
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if ((k.saUID !== '' && k.saUID !== sa.metadata.uid) || !sa.secrets?.some((r) => r.name === k.name)) return;
      try {
        await this.ctx.client.update<ServiceAccount>(R.serviceaccounts, k.namespace, { ...sa, secrets: sa.secrets.filter((r) => r.name !== k.name) });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e)) throw e;
      }
    }
  }
}

export const serviceAccountTokenDescriptor: ControllerDescriptor = {
  name: 'serviceaccount-token-controller',
  aliases: ['serviceaccount-token'],
  serviceAccountName: 'tokens-controller',
  enabledByDefault: true,
  rootClient: true,
  create: (ctx) => {
    const file = ctx.options['service-account-private-key-file'];
    if (file === '') {
      ctx.logger.info({ controller: 'serviceaccount-token-controller' }, 'Controller is disabled because there is no private key');
      return undefined;
    }
    let signer: SigningKey;
    try {
      signer = readSigningKey(file);
    } catch (e) {
      throw new Error(`error reading key for service account token controller: ${(e as Error).message}`);
    }
    return new TokensController(ctx, signer, rootCA(ctx));
  },
};

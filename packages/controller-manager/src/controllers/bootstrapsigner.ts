// bootstrap-signer-controller (off by default): keeps kube-public/cluster-info signed for bootstrap tokens. For each
// usable token Secret in kube-system (named bootstrap-token-<id>, `token-id` = <id>, a `token-secret`, not expired,
// `usage-bootstrap-signing: "true"`) the ConfigMap gets `jws-kubeconfig-<id>`: the detached JWS of its `kubeconfig`
// key; signatures of tokens that went are removed. It never creates cluster-info (kubeadm, or the lab, does).
import { CompactSign } from 'jose';
import {
  BOOTSTRAP_TOKEN_ID_KEY,
  BOOTSTRAP_TOKEN_SECRET_KEY,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_TOKEN_USAGE_SIGNING_KEY,
  CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY,
  JWS_SIGNATURE_KEY_PREFIX,
  R,
  bootstrapSecretData,
  bootstrapTokenExpiration,
  parseBootstrapTokenSecretName,
  type ConfigMap,
  type Secret,
} from '@kemu/api';
import { isConflict, isNotFound, unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

const PUBLIC = 'kube-public';
const SYSTEM = 'kube-system';
const KEY = `${PUBLIC}/${CLUSTER_INFO_CONFIGMAP}`;

/**
 * cluster-bootstrap's ComputeDetachedSignature: a compact HS256 JWS with header {"alg":"HS256","kid":<id>} keyed by
 * the token secret (zero-padded to 32 bytes, as go-jose wants), with the payload part left out ("<h>..<sig>").
 */
export async function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const secret = new TextEncoder().encode(tokenSecret);
  const key = new Uint8Array(Math.max(32, secret.length));
  key.set(secret);
  const jws = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(key);
  const [header, , signature] = jws.split('.');
  return `${header ?? ''}..${signature ?? ''}`;
}

/** validateSecretForSigning: the token id and secret of a Secret that may sign, else undefined. */
export function signingToken(secret: Secret, nowMs: number): { id: string; secret: string } | undefined {
  const nameId = parseBootstrapTokenSecretName(secret.metadata.name ?? '');
  const id = bootstrapSecretData(secret, BOOTSTRAP_TOKEN_ID_KEY);
  const tokenSecret = bootstrapSecretData(secret, BOOTSTRAP_TOKEN_SECRET_KEY);
  if (!nameId || id === '' || id !== nameId || tokenSecret === '') return undefined;
  if (bootstrapTokenExpiration(secret, nowMs).expired) return undefined;
  if (bootstrapSecretData(secret, BOOTSTRAP_TOKEN_USAGE_SIGNING_KEY) !== 'true') return undefined;
  return { id, secret: tokenSecret };
}

export class BootstrapSignerController implements Controller {
  readonly name = 'bootstrap-signer-controller';
  private readonly secrets: SharedInformer<Secret>;
  private readonly configMaps: SharedInformer<ConfigMap>;
  private readonly worker: KeyedWorker;

  constructor(private readonly ctx: ControllerContext) {
    this.secrets = ctx.informers.informerFor<Secret>(R.secrets);
    this.configMaps = ctx.informers.informerFor<ConfigMap>(R.configmaps);
    // One key: updates from both informers collapse into one signing pass.
    this.worker = new KeyedWorker(ctx, { name: 'bootstrap_signer_queue', workers: 1, sync: () => this.sync() }).waitFor(this.configMaps, this.secrets);
    const poke = () => this.worker.add(KEY);
    const isClusterInfo = (cm: ConfigMap) => cm.metadata.namespace === PUBLIC && cm.metadata.name === CLUSTER_INFO_CONFIGMAP;
    const isToken = (s: Secret) => s.metadata.namespace === SYSTEM && s.type === BOOTSTRAP_TOKEN_SECRET_TYPE;
    this.configMaps.addEventHandler({
      onAdd: (cm) => isClusterInfo(cm) && poke(),
      onUpdate: (_o, cm) => isClusterInfo(cm) && poke(),
    });
    this.secrets.addEventHandler({
      onAdd: (s) => isToken(s) && poke(),
      onUpdate: (_o, s) => isToken(s) && poke(),
      onDelete: (obj) => isToken(unwrapDeleted(obj)) && poke(),
    });
  }

  run(): Promise<void> {
    return this.worker.run();
  }

  private tokens(): Map<string, string> {
    const out = new Map<string, string>();
    for (const s of this.secrets.store.list()) {
      if (s.metadata.namespace !== SYSTEM || s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) continue;
      const t = signingToken(s, this.ctx.clock.now());
      if (!t) continue;
      if (out.has(t.id)) {
        this.ctx.logger.info({ tokenID: t.id, ignoredSecret: `${SYSTEM}/${s.metadata.name ?? ''}` }, 'Duplicate bootstrap tokens found for id, ignoring on the duplicate secret');
        continue;
      }
      out.set(t.id, t.secret);
    }
    return out;
  }

  private async sync(): Promise<void> {
    const cm = this.configMaps.store.get(KEY);
    const content = cm?.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
    if (!cm || content === undefined) return;
    const data: Record<string, string> = {};
    const old = new Map<string, string>();
    for (const [k, v] of Object.entries(cm.data ?? {})) {
      if (k.startsWith(JWS_SIGNATURE_KEY_PREFIX)) old.set(k.slice(JWS_SIGNATURE_KEY_PREFIX.length), v);
      else data[k] = v;
    }
    let changed = false;
    for (const [id, secret] of this.tokens()) {
      const sig = await computeDetachedSignature(content, id, secret);
      if (old.get(id) !== sig) changed = true;
      old.delete(id);
      data[`${JWS_SIGNATURE_KEY_PREFIX}${id}`] = sig;
    }
    if (!changed && old.size === 0) return;
    try {
      await this.ctx.client.update<ConfigMap>(R.configmaps, PUBLIC, { ...structuredClone(cm), data });
    } catch (e) {
      // A conflict brings an update event (and another pass); a deleted ConfigMap has nothing left to sign.
      if (isConflict(e) || isNotFound(e)) return;
      throw e;
    }
  }
}

export const bootstrapSignerDescriptor: ControllerDescriptor = {
  name: 'bootstrap-signer-controller',
  aliases: ['bootstrapsigner'],
  serviceAccountName: 'bootstrap-signer',
  enabledByDefault: false,
  create: (ctx) => new BootstrapSignerController(ctx),
};

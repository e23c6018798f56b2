// ServiceAccount admission on pod create: a pod without serviceAccountName runs as "default"; unless
// automountServiceAccountToken is false (on the pod, else on its ServiceAccount) it gets the projected
// kube-api-access-<suffix> volume (token, kube-root-ca.crt's ca.crt, the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container and init container, and the
// ServiceAccount's imagePullSecrets when it names none. Mirror pods are left alone, as Kubernetes does.
// Unlike Kubernetes, a missing ServiceAccount is not refused (kemu may run without the controller that
// creates "default").
import { randomInt } from 'node:crypto';
import type { AdmissionPlugin } from './types.ts';
import { isObj, podCreate } from './types.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** Kubernetes' token lifetime for the projected volume (an hour and 7 s, so kubelets refresh in time). */
export const TOKEN_EXPIRATION_SECONDS = 3607;

// utilrand.String's alphabet: no vowels, no look-alikes.
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const suffix = (): string => Array.from({ length: 5 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

function tokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

export const serviceAccountPlugin: AdmissionPlugin = {
  name: 'ServiceAccount',
  async admit(attrs, ctx) {
    const pod = podCreate(attrs);
    if (!pod) return;
    const spec = pod.spec;
    if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
    if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
      spec.serviceAccountName = typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '' ? spec.serviceAccount : DEFAULT_SERVICE_ACCOUNT;
    }
    const saName = String(spec.serviceAccountName);
    spec.serviceAccount = saName;
    const sa = attrs.namespace ? await ctx.getServiceAccount?.(attrs.namespace, saName) : undefined;
    const automount = typeof spec.automountServiceAccountToken === 'boolean' ? spec.automountServiceAccountToken : sa?.automountServiceAccountToken !== false;
    if (automount) mountToken(spec);
    const pullSecrets = sa?.imagePullSecrets;
    if ((!Array.isArray(spec.imagePullSecrets) || spec.imagePullSecrets.length === 0) && Array.isArray(pullSecrets) && pullSecrets.length > 0) {
      spec.imagePullSecrets = structuredClone(pullSecrets);
    }
  },
};

function mountToken(spec: Record<string, unknown>): void {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : [];
  const name = `${TOKEN_VOLUME_PREFIX}${suffix()}`;
  let mounted = false;
  for (const list of ['initContainers', 'containers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObj(c)) continue;
      const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts : [];
      // A container that mounts something at the token path itself keeps it.
      if (mounts.some((m: unknown) => isObj(m) && m.mountPath === TOKEN_MOUNT_PATH)) continue;
      c.volumeMounts = [...mounts, { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      mounted = true;
    }
  }
  if (mounted) spec.volumes = [...volumes, tokenVolume(name)];
}

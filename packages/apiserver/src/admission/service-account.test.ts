import { describe, expect, it } from 'vitest';
import { R, type KubeObject, type ServiceAccount } from '@kemu/api';
import { serviceAccountPlugin, TOKEN_MOUNT_PATH } from './service-account.ts';
import type { AdmissionContext } from './types.ts';

const run = async (spec: Record<string, unknown>, sa?: ServiceAccount, annotations?: Record<string, string>) => {
  const pod: KubeObject = { metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec: structuredClone(spec) };
  const ctx: AdmissionContext = { getServiceAccount: async (ns, name) => (sa && sa.metadata.name === name && ns === 'ns' ? sa : undefined) };
  await serviceAccountPlugin.admit?.({ operation: 'CREATE', resource: R.pods, namespace: 'ns', name: 'p', object: pod, dryRun: false }, ctx);
  return pod.spec as { serviceAccountName?: string; volumes?: Array<{ name: string; projected?: unknown }>; containers: Array<{ volumeMounts?: unknown[] }>; initContainers?: Array<{ volumeMounts?: unknown[] }>; imagePullSecrets?: unknown };
};

const projected = {
  defaultMode: 420,
  sources: [
    { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
    { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
  ],
};

describe('ServiceAccount admission', () => {
  it('defaults the account and mounts the kube-api-access volume in every container and init container', async () => {
    const spec = await run({ initContainers: [{ name: 'i', image: 'x' }], containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', emptyDir: {} }] });
    expect(spec.serviceAccountName).toBe('default');
    const vol = spec.volumes?.[1];
    expect(vol?.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vol?.projected).toEqual(projected);
    const mount = { name: vol?.name, readOnly: true, mountPath: TOKEN_MOUNT_PATH };
    expect(spec.containers[0]?.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }, mount]);
    expect(spec.initContainers?.[0]?.volumeMounts).toEqual([mount]);
  });

  it.each([
    { case: 'pod opts out', spec: { automountServiceAccountToken: false, containers: [{ name: 'c' }] }, sa: undefined, mounts: false },
    { case: 'account opts out', spec: { containers: [{ name: 'c' }] }, sa: { metadata: { name: 'default' }, automountServiceAccountToken: false }, mounts: false },
    { case: 'pod opts back in', spec: { automountServiceAccountToken: true, containers: [{ name: 'c' }] }, sa: { metadata: { name: 'default' }, automountServiceAccountToken: false }, mounts: true },
    { case: 'the path is already mounted', spec: { containers: [{ name: 'c', volumeMounts: [{ name: 'own', mountPath: TOKEN_MOUNT_PATH }] }], volumes: [{ name: 'own', secret: { secretName: 's' } }] }, sa: undefined, mounts: false },
  ])('$case', async ({ spec, sa, mounts }) => {
    const out = await run(spec, sa);
    expect(out.volumes?.some((v) => v.name.startsWith('kube-api-access-')) ?? false).toBe(mounts);
  });

  it("copies the account's imagePullSecrets when the pod names none", async () => {
    const sa: ServiceAccount = { metadata: { name: 'builder' }, imagePullSecrets: [{ name: 'regcred' }] };
    expect((await run({ serviceAccountName: 'builder', containers: [{ name: 'c' }] }, sa)).imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect((await run({ serviceAccountName: 'builder', imagePullSecrets: [{ name: 'own' }], containers: [{ name: 'c' }] }, sa)).imagePullSecrets).toEqual([{ name: 'own' }]);
  });

  it('leaves mirror pods alone', async () => {
    const spec = await run({ containers: [{ name: 'c' }] }, undefined, { 'kubernetes.io/config.mirror': 'x' });
    expect(spec.serviceAccountName).toBeUndefined();
    expect(spec.volumes).toBeUndefined();
  });
});

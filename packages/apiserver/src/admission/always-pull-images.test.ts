import { describe, expect, it } from 'vitest';
import { R, StatusError, type KubeObject } from '@kemu/api';
import { alwaysPullImagesPlugin } from './always-pull-images.ts';
import type { AdmissionAttributes } from './types.ts';

const pod = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p', namespace: 'default' }, spec });
const attrs = (operation: 'CREATE' | 'UPDATE', object: KubeObject, oldObject?: KubeObject, subresource?: string): AdmissionAttributes => ({
  operation,
  resource: R.pods,
  namespace: 'default',
  name: 'p',
  object,
  ...(oldObject ? { oldObject } : {}),
  ...(subresource ? { subresource } : {}),
  dryRun: false,
});
const policies = (o: KubeObject): unknown[] =>
  ['initContainers', 'containers', 'ephemeralContainers'].flatMap((l) => ((o.spec as Record<string, Array<{ imagePullPolicy?: string }> | undefined>)[l] ?? []).map((c) => c.imagePullPolicy));

describe('AlwaysPullImages', () => {
  it.each([
    { case: 'create: every kind of container', op: 'CREATE' as const, spec: { initContainers: [{ name: 'i', image: 'a' }], containers: [{ name: 'c', image: 'b', imagePullPolicy: 'IfNotPresent' }], ephemeralContainers: [{ name: 'e', image: 'c', imagePullPolicy: 'Never' }] }, want: ['Always', 'Always', 'Always'] },
    { case: 'update with a new image', op: 'UPDATE' as const, old: { containers: [{ name: 'c', image: 'a', imagePullPolicy: 'IfNotPresent' }] }, spec: { containers: [{ name: 'c', image: 'b', imagePullPolicy: 'IfNotPresent' }] }, want: ['Always'] },
    { case: 'update with the same images is left alone', op: 'UPDATE' as const, old: { containers: [{ name: 'c', image: 'a', imagePullPolicy: 'IfNotPresent' }] }, spec: { containers: [{ name: 'c', image: 'a', imagePullPolicy: 'IfNotPresent' }] }, want: ['IfNotPresent'] },
    { case: 'ephemeralcontainers subresource (every container, as Kubernetes)', op: 'UPDATE' as const, sub: 'ephemeralcontainers', old: { containers: [{ name: 'c', image: 'a' }] }, spec: { containers: [{ name: 'c', image: 'a' }], ephemeralContainers: [{ name: 'e', image: 'busybox', imagePullPolicy: 'IfNotPresent' }] }, want: ['Always', 'Always'] },
    { case: 'status subresource is not touched', op: 'UPDATE' as const, sub: 'status', old: { containers: [{ name: 'c', image: 'a' }] }, spec: { containers: [{ name: 'c', image: 'b', imagePullPolicy: 'Never' }] }, want: ['Never'] },
  ])('$case', async ({ op, spec, old, sub, want }) => {
    const p = pod(structuredClone(spec));
    const a = attrs(op, p, old ? pod(old) : undefined, sub);
    await alwaysPullImagesPlugin.admit?.(a, {});
    expect(policies(p)).toEqual(want);
    await alwaysPullImagesPlugin.validate?.(a, {});
  });

  it('validation refuses a policy a later step changed, as Kubernetes words it', () => {
    const p = pod({ containers: [{ name: 'c', image: 'a', imagePullPolicy: 'IfNotPresent' }] });
    let err: unknown;
    try {
      void alwaysPullImagesPlugin.validate?.(attrs('CREATE', p), {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(403);
    expect((err as StatusError).message).toBe('pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
  });

  it('ignores other kinds', async () => {
    const cm: KubeObject = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'a' }] } };
    await alwaysPullImagesPlugin.admit?.({ ...attrs('CREATE', cm), resource: R.configmaps }, {});
    expect(policies(cm)).toEqual([undefined]);
  });
});

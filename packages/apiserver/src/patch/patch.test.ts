import { describe, expect, it } from 'vitest';
import { R, StatusError } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { applyPatch } from './index.ts';

const SMP = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';
const JSONP = 'application/json-patch+json';

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'fe' }, annotations: { a: '1' } },
  spec: {
    replicas: 2,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'a',
            image: 'nginx',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [
              { containerPort: 80, protocol: 'TCP' },
              { containerPort: 443, protocol: 'TCP' },
            ],
            volumeMounts: [{ name: 'v', mountPath: '/data' }],
          },
          { name: 'sidecar', image: 'busybox' },
        ],
        tolerations: [{ key: 'x', operator: 'Exists' }],
      },
    },
  },
});

function spec(o: KubeObject): Record<string, any> {
  return o.spec as Record<string, any>;
}

describe('strategic merge patch', () => {
  it('applies the kubectl apply patch from CLIENT-WIRE §6.6', () => {
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}\n' }, labels: { tier: null } },
      spec: {
        strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' },
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'a' }],
            containers: [
              {
                name: 'a',
                '$setElementOrder/env': [{ name: 'B' }],
                '$setElementOrder/ports': [{ containerPort: 80 }],
                env: [{ $patch: 'delete', name: 'A' }],
                ports: [{ $patch: 'delete', containerPort: 443 }],
              },
              { $patch: 'delete', name: 'sidecar' },
            ],
          },
        },
      },
    };
    const out = applyPatch(SMP, deployment(), patch, R.deployments);
    expect(out.metadata.labels).toEqual({ app: 'web' });
    expect(out.metadata.annotations).toEqual({ a: '1', 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}\n' });
    expect(spec(out).strategy).toEqual({ type: 'Recreate' });
    expect(spec(out).template.spec.containers).toEqual([
      {
        name: 'a',
        image: 'nginx',
        env: [{ name: 'B', value: '2' }],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ name: 'v', mountPath: '/data' }],
      },
    ]);
    expect(JSON.stringify(out)).not.toContain('$');
  });

  it.each<[string, Record<string, unknown>, (o: KubeObject) => unknown, unknown]>([
    [
      'merges containers by name',
      { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:2' }] } } } },
      (o) => spec(o).template.spec.containers.map((c: { image: string }) => c.image),
      ['nginx', 'busybox:2'],
    ],
    [
      'appends a new container',
      { spec: { template: { spec: { containers: [{ name: 'c3', image: 'x' }] } } } },
      (o) => spec(o).template.spec.containers.map((c: { name: string }) => c.name),
      ['a', 'sidecar', 'c3'],
    ],
    [
      'merges env by name inside a container',
      { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'B', value: 'x' }, { name: 'C', value: '3' }] }] } } } },
      (o) => spec(o).template.spec.containers[0].env,
      [
        { name: 'A', value: '1' },
        { name: 'B', value: 'x' },
        { name: 'C', value: '3' },
      ],
    ],
    [
      'merges ports by containerPort',
      { spec: { template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }] }] } } } },
      (o) => spec(o).template.spec.containers[0].ports[0],
      { containerPort: 80, protocol: 'TCP', name: 'http' },
    ],
    [
      'replaces tolerations (no merge key)',
      { spec: { template: { spec: { tolerations: [{ key: 'y', operator: 'Exists' }] } } } },
      (o) => spec(o).template.spec.tolerations,
      [{ key: 'y', operator: 'Exists' }],
    ],
    [
      '$patch: replace on a list',
      { spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } } } },
      (o) => spec(o).template.spec.containers,
      [{ name: 'only', image: 'x' }],
    ],
    [
      '$patch: replace on a map',
      { spec: { strategy: { $patch: 'replace', type: 'Recreate' } } },
      (o) => spec(o).strategy,
      { type: 'Recreate' },
    ],
    ['$patch: delete on a map', { spec: { strategy: { $patch: 'delete' } } }, (o) => spec(o).strategy, undefined],
    ['null deletes a field', { spec: { replicas: null } }, (o) => spec(o).replicas, undefined],
    ['strips unknown directives', { spec: { $bogus: 1, replicas: 3 } }, (o) => spec(o), expect.not.objectContaining({ $bogus: 1 })],
    [
      '$setElementOrder reorders',
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'a' }], containers: [] } } } },
      (o) => spec(o).template.spec.containers.map((c: { name: string }) => c.name),
      ['sidecar', 'a'],
    ],
  ])('%s', (_name, patch, pick, want) => {
    expect(pick(applyPatch(SMP, deployment(), patch, R.deployments))).toEqual(want);
  });

  it('$setElementOrder keeps elements it does not list at their server position', () => {
    const o: KubeObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }, { name: 'injected' }, { name: 'b' }] } };
    const out = applyPatch(SMP, o, { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'b', image: 'x' }] } }, R.pods);
    expect(spec(out).containers.map((c: { name: string }) => c.name)).toEqual(['injected', 'b', 'a']);
    const env: KubeObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', env: [{ name: 'X' }, { name: 'Y' }, { name: 'Z' }] }] } };
    const out2 = applyPatch(SMP, env, { spec: { containers: [{ name: 'a', '$setElementOrder/env': [{ name: 'X' }, { name: 'Z' }, { name: 'N' }], env: [{ name: 'N', value: '1' }] }] } }, R.pods);
    expect(spec(out2).containers[0].env.map((e: { name: string }) => e.name)).toEqual(['X', 'Y', 'Z', 'N']);
  });

  it('finalizers merge as a set, $deleteFromPrimitiveList removes', () => {
    const o: KubeObject = { metadata: { name: 'x', finalizers: ['a', 'b'] } };
    expect(applyPatch(SMP, o, { metadata: { finalizers: ['c', 'a'] } }, R.configmaps).metadata.finalizers).toEqual(['a', 'b', 'c']);
    expect(applyPatch(SMP, o, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, R.configmaps).metadata.finalizers).toEqual(['b']);
  });

  it('service ports merge by port; conditions by type; ownerReferences by uid', () => {
    const svc: KubeObject = { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
    expect(spec(applyPatch(SMP, svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, R.services)).ports).toEqual([
      { port: 80, targetPort: 9090 },
      { port: 443 },
    ]);
    const node: KubeObject = {
      metadata: { name: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u1' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'MemoryPressure', status: 'False' }] },
    };
    const out = applyPatch(
      SMP,
      node,
      { metadata: { ownerReferences: [{ uid: 'u2', apiVersion: 'v1', kind: 'Y', name: 'y' }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      R.nodes,
    );
    expect((out.status as { conditions: unknown[] }).conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'MemoryPressure', status: 'False' },
    ]);
    expect(out.metadata.ownerReferences?.map((r) => r.uid)).toEqual(['u1', 'u2']);
  });

  it('rejects a list element without its merge key', () => {
    expect(() => applyPatch(SMP, deployment(), { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, R.deployments)).toThrow(
      'does not contain declared merge key: name',
    );
  });
});

describe('merge patch and json patch', () => {
  it('merge patch: recursive, null deletes, lists replace', () => {
    const out = applyPatch(MERGE, deployment(), { metadata: { labels: { tier: null, v: '2' } }, spec: { replicas: 5, template: { spec: { containers: [] } } } }, R.deployments);
    expect(out.metadata.labels).toEqual({ app: 'web', v: '2' });
    expect(spec(out).replicas).toBe(5);
    expect(spec(out).template.spec.containers).toEqual([]);
    expect(spec(out).strategy.type).toBe('RollingUpdate');
  });

  it('json patch applies operations', () => {
    const out = applyPatch(
      JSONP,
      deployment(),
      [
        { op: 'replace', path: '/spec/replicas', value: 7 },
        { op: 'add', path: '/metadata/labels/new', value: 'x' },
        { op: 'remove', path: '/metadata/annotations/a' },
        { op: 'test', path: '/spec/replicas', value: 7 },
      ],
      R.deployments,
    );
    expect(spec(out).replicas).toBe(7);
    expect(out.metadata.labels?.new).toBe('x');
    expect(out.metadata.annotations).toEqual({});
  });

  it.each<[string, unknown, number]>([
    ['not a list', { op: 'add' }, 400],
    ['unknown op', [{ op: 'frobnicate', path: '/x' }], 400],
    ['missing value', [{ op: 'add', path: '/x' }], 400],
    ['missing path target', [{ op: 'remove', path: '/spec/nope' }], 422],
    ['failed test', [{ op: 'test', path: '/spec/replicas', value: 99 }], 422],
  ])('json patch %s → %d', (_n, patch, code) => {
    let err: unknown;
    try {
      applyPatch(JSONP, deployment(), patch, R.deployments);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(code);
  });

  it('unknown media type → 415', () => {
    expect(() => applyPatch('application/x-bogus', deployment(), {}, R.deployments)).toThrow(/unknown format/);
  });

  it('apply-patch merges the manifest over the live object', () => {
    const out = applyPatch('application/apply-patch+yaml', deployment(), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4 } }, R.deployments);
    expect(spec(out).replicas).toBe(4);
    expect(spec(out).template.spec.containers).toHaveLength(2);
  });
});

describe('nesting', () => {
  const deep = (levels: number): unknown => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));
  const cm = (): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });

  it('a JSON patch whose operations nest the object past the limit is a 400, not a stack overflow later', () => {
    const ops = [0, 399, 798].map((n) => ({ op: 'add', path: `/extra${'/a'.repeat(n)}`, value: deep(400) }));
    expect(() => applyPatch(JSONP, cm(), ops)).toThrow(expect.objectContaining({ code: 400, message: expect.stringContaining('the patched object is nested more than 500 levels deep') }));
  });

  it('patches within the limit apply', () => {
    for (const mt of [MERGE, SMP]) expect(applyPatch(mt, cm(), { extra: deep(400) }).extra).toEqual(deep(400));
    expect(applyPatch(JSONP, cm(), [{ op: 'add', path: '/extra', value: deep(400) }]).extra).toEqual(deep(400));
  });
});

import { describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import type { KubeObject, ResourceInfo, StatusCause } from '@kemu/api';
import { strategyFor } from './index.ts';

function create(r: ResourceInfo, obj: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const s = strategyFor(r);
  const o = structuredClone(obj);
  s.defaults?.(o);
  s.prepareForCreate?.(o);
  return { obj: o, causes: s.validate?.(o) ?? [] };
}

function update(r: ResourceInfo, next: KubeObject, old: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const s = strategyFor(r);
  const o = structuredClone(next);
  s.defaults?.(o);
  s.prepareForUpdate?.(o, old);
  return { obj: o, causes: s.validateUpdate?.(o, old) ?? [] };
}

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } };
const sts = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'default' },
  spec: { serviceName: 'nginx', selector: { matchLabels: { app: 'web' } }, template, ...spec },
});
const ds = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'fluentd', namespace: 'kube-system' },
  spec: { selector: { matchLabels: { app: 'web' } }, template, ...spec },
});
const messages = (c: StatusCause[]) => c.map((x) => `${x.field}: ${x.message}`);

describe('statefulsets', () => {
  it("get Kubernetes' defaults, the claim templates too", () => {
    const { obj, causes } = create(R.statefulsets, sts({ volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }));
    expect(causes).toEqual([]);
    expect(obj.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    expect(obj.metadata.generation).toBe(1);
    expect(obj.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  it('refuse a selector that misses the template labels, and changes to fixed spec fields', () => {
    expect(messages(create(R.statefulsets, sts({ selector: { matchLabels: { app: 'other' } } })).causes)).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    const old = create(R.statefulsets, sts()).obj;
    old.metadata.resourceVersion = '5';
    const next = structuredClone(old);
    (next.spec as Record<string, unknown>).serviceName = 'other';
    expect(messages(update(R.statefulsets, next, old).causes)).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const scaled = structuredClone(old);
    (scaled.spec as Record<string, unknown>).replicas = 5;
    expect(update(R.statefulsets, scaled, old).causes).toEqual([]);
  });
});

describe('daemonsets', () => {
  it("get Kubernetes' defaults and the template generation annotation, bumped by a template change", () => {
    const { obj, causes } = create(R.daemonsets, ds());
    expect(causes).toEqual([]);
    expect(obj.spec).toMatchObject({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
    expect(obj.metadata.annotations).toEqual({ 'deprecated.daemonset.template.generation': '1' });
    const next = structuredClone(obj);
    ((next.spec as { template: typeof template }).template.spec.containers[0] as { image: string }).image = 'nginx:2';
    expect(update(R.daemonsets, next, obj).obj.metadata.annotations).toEqual({ 'deprecated.daemonset.template.generation': '2' });
  });

  it('refuse maxUnavailable 0 with maxSurge 0', () => {
    expect(messages(create(R.daemonsets, ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } })).causes)).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
    ]);
  });
});

describe('Tables', () => {
  it("print kubectl's columns", () => {
    const p = strategyFor(R.daemonsets).printer;
    expect(p?.columns.map((c) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector']);
    expect(strategyFor(R.statefulsets).printer?.columns.map((c) => c.name)).toEqual(['Name', 'Ready', 'Age', 'Containers', 'Images']);
    const cr = strategyFor(R.controllerrevisions).printer;
    expect(cr?.columns.map((c) => c.name)).toEqual(['Name', 'Controller', 'Revision', 'Age']);
    const row = cr?.cells(
      { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-7b', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] }, revision: 2 },
      Date.now(),
    );
    expect(row?.slice(0, 3)).toEqual(['web-7b', 'statefulset.apps/web', 2]);
  });
});

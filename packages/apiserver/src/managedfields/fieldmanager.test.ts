// Field sets (FieldsV1 form, set algebra, conflict paths), toFieldSet/compare on built-in kinds, the
// apply merge and prune, and ownership bookkeeping of updates and applies.
import { R, type KubeObject } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { mergeApplied, prune } from './apply-merge.ts';
import { compare, toFieldSet } from './compute.ts';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, identifier, isReset } from './entries.ts';
import { prepareApply, recordUpdate } from './fieldmanager.ts';
import { FieldSet, pathString } from './fieldset.ts';
import { prefixFromUserAgent } from './manager-name.ts';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const scope = { resource: R.deployments, now: NOW };

function deploy(replicas: number, containers: Record<string, unknown>[] = [{ name: 'web', image: 'nginx' }]): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers } } },
  };
}

describe('FieldSet', () => {
  it('round-trips FieldsV1 with "." after the children of a node that is also a member, in SMD order', () => {
    const v1 = { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {}, '.': {} } }, 'f:replicas': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } };
    const s = FieldSet.fromFieldsV1(v1);
    expect(JSON.stringify(s.toFieldsV1())).toBe('{"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{"f:image":{},".":{}}},"f:replicas":{}}}');
    expect(s.paths().map(pathString)).toEqual(['.metadata.labels.x', '.spec.containers[name="a"]', '.spec.containers[name="a"].image', '.spec.replicas']);
  });

  it('orders fields before keys before values before indices, and indices numerically', () => {
    const s = FieldSet.fromFieldsV1({ 'i:10': {}, 'v:"b"': {}, 'i:9': {}, 'k:{"a":1}': {}, 'f:z': {} });
    expect(Object.keys(s.toFieldsV1())).toEqual(['f:z', 'k:{"a":1}', 'v:"b"', 'i:9', 'i:10']);
  });

  it('union, intersection, difference and recursiveDifference as structured-merge-diff defines them', () => {
    const a = FieldSet.fromFieldsV1({ 'f:spec': { 'f:a': {}, 'f:b': {} }, 'f:status': { 'f:x': {} } });
    const b = FieldSet.fromFieldsV1({ 'f:spec': { 'f:b': {}, 'f:c': {} }, 'f:status': {} });
    expect(a.union(b).toFieldsV1()).toEqual({ 'f:spec': { 'f:a': {}, 'f:b': {}, 'f:c': {} }, 'f:status': { 'f:x': {}, '.': {} } });
    expect(a.intersection(b).toFieldsV1()).toEqual({ 'f:spec': { 'f:b': {} } });
    expect(a.difference(b).toFieldsV1()).toEqual({ 'f:spec': { 'f:a': {} }, 'f:status': { 'f:x': {} } });
    expect(a.recursiveDifference(b).toFieldsV1()).toEqual({ 'f:spec': { 'f:a': {} } });
  });

  it('prints keys, values and indices like fieldpath.Path.String', () => {
    expect(pathString(['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:targetPort'])).toBe('.spec.ports[port=80,protocol="TCP"].targetPort');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"a/b"'])).toBe('.metadata.finalizers[="a/b"]');
    expect(pathString(['f:spec', 'f:args', 'i:0'])).toBe('.spec.args[0]');
  });

  it('refuses a FieldsV1 that is not a tree of objects', () => {
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 1 })).toThrow(/must be an object/);
    expect(() => FieldSet.fromFieldsV1('x')).toThrow(/must be an object/);
  });
});

describe('toFieldSet and compare', () => {
  it('keys containers by name, ports by containerPort and protocol (defaulted), finalizers by value; selector and args are atomic', () => {
    const obj = deploy(1, [{ name: 'web', image: 'nginx', args: ['a'], ports: [{ containerPort: 80 }] }]);
    obj.metadata.finalizers = ['x/y'];
    const s = toFieldSet(obj as unknown as Record<string, unknown>, R.deployments);
    const spec = s.toFieldsV1()['f:spec'] as Record<string, Record<string, unknown>>;
    expect(spec['f:selector']).toEqual({});
    expect(s.toFieldsV1()['f:metadata']).toMatchObject({ 'f:finalizers': { 'v:"x/y"': {} } });
    const c = (((spec['f:template'] as Record<string, unknown>)['f:spec'] as Record<string, unknown>)['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"web"}'];
    expect(c).toEqual({ 'f:args': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { 'f:containerPort': {}, '.': {} } }, '.': {} });
  });

  it('a configuration list item without its key is refused', () => {
    expect(() => toFieldSet(deploy(1, [{ image: 'x' }]) as unknown as Record<string, unknown>, R.deployments)).toThrow(
      '.spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });

  it('compare gives added subtrees as members, modified leaves, and removed items', () => {
    const before = deploy(1, [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }]);
    const after = deploy(2, [{ name: 'a', image: 'z', env: [{ name: 'E', value: '1' }] }]);
    const c = compare(before as unknown as Record<string, unknown>, after as unknown as Record<string, unknown>, R.deployments);
    expect(c.changed.paths().map(pathString)).toEqual([
      '.spec.replicas',
      '.spec.template.spec.containers[name="a"].env',
      '.spec.template.spec.containers[name="a"].env[name="E"]',
      '.spec.template.spec.containers[name="a"].env[name="E"].name',
      '.spec.template.spec.containers[name="a"].env[name="E"].value',
      '.spec.template.spec.containers[name="a"].image',
    ]);
    expect(c.removed.paths().map(pathString)).toEqual(['.spec.template.spec.containers[name="b"]', '.spec.template.spec.containers[name="b"].image', '.spec.template.spec.containers[name="b"].name']);
  });

  it('compare finds no change in a null kept as null, and a change from null to a value', () => {
    const withNull = { spec: { template: { metadata: { creationTimestamp: null, labels: { a: 'b' } } } } };
    const same = compare(withNull, structuredClone(withNull), R.deployments);
    expect(same.changed.isEmpty() && same.removed.isEmpty()).toBe(true);
    const set = compare(withNull, { spec: { template: { metadata: { creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' } } } } }, R.deployments);
    expect(set.changed.paths().map(pathString)).toEqual(['.spec.template.metadata.creationTimestamp']);
  });
});

describe('apply merge and prune', () => {
  it('merges keyed lists by key and keeps live fields the configuration does not mention', () => {
    const live = deploy(3, [{ name: 'a', image: 'x', imagePullPolicy: 'Always' }]) as unknown as Record<string, unknown>;
    const cfg = deploy(3, [{ name: 'a', image: 'y' }, { name: 'b', image: 'z' }]) as unknown as Record<string, unknown>;
    const out = mergeApplied(live, cfg, R.deployments) as unknown as KubeObject;
    expect((out.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers).toEqual([
      { name: 'a', image: 'y', imagePullPolicy: 'Always' },
      { name: 'b', image: 'z' },
    ]);
    expect((live.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]?.image).toBe('x');
  });

  it('prunes what the applier owned last time unless kept, and drops a map it emptied', () => {
    const obj: Record<string, unknown> = { data: { a: '1', b: '2' }, metadata: { name: 'c', labels: { x: '1' } } };
    const last = FieldSet.fromFieldsV1({ 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } });
    const keep = FieldSet.fromFieldsV1({ 'f:data': { 'f:b': {} } });
    prune(obj, last, keep, R.configmaps);
    expect(obj).toEqual({ data: { b: '2' }, metadata: { name: 'c' } });
  });
});

describe('ownership', () => {
  it('an update takes the fields it changes from other managers; its time is set only when it changed something', () => {
    const created = deploy(1);
    recordUpdate(undefined, created, 'creator', scope);
    const next = structuredClone(created);
    (next.spec as { replicas: number }).replicas = 4;
    recordUpdate(created, next, 'hpa', { ...scope, now: NOW + 5000 });
    const m = decodeManagedFields(next.metadata.managedFields);
    const creator = m.get(identifier({ manager: 'creator', operation: 'Update', apiVersion: 'apps/v1' }));
    const hpa = m.get(identifier({ manager: 'hpa', operation: 'Update', apiVersion: 'apps/v1' }));
    expect(creator?.set.has(['f:spec', 'f:replicas'])).toBe(false);
    expect(creator?.set.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'])).toBe(true);
    expect(hpa?.set.toFieldsV1()).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(hpa?.time).toBe('2026-12-02T10:00:05Z');
  });

  it('an apply shares fields set to the same value, conflicts on a different one, and force moves them', () => {
    const live = deploy(1);
    recordUpdate(undefined, live, 'kubectl-client-side-apply', scope);
    const same = prepareApply(live, deploy(1), 'kubectl', false, scope);
    const shared = structuredClone(same.object);
    same.record(live, shared);
    expect(encodeManagedFields(decodeManagedFields(shared.metadata.managedFields))?.map((e) => e.manager)).toEqual(['kubectl', 'kubectl-client-side-apply']);

    const changed = prepareApply(live, deploy(3), 'kubectl', false, scope);
    expect(() => changed.record(live, structuredClone(changed.object))).toThrow('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
    const forced = prepareApply(live, deploy(3), 'kubectl', true, scope);
    const out = structuredClone(forced.object);
    forced.record(live, out);
    const m = decodeManagedFields(out.metadata.managedFields);
    expect(m.get(identifier({ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1' }))?.set.has(['f:spec', 'f:replicas'])).toBe(false);
    expect(m.get(identifier({ manager: 'kubectl', operation: 'Apply', apiVersion: '' }))?.set.has(['f:spec', 'f:replicas'])).toBe(true);
  });

  it('[] and [{}] reset managedFields; beyond ten updaters the oldest merge into ancient-changes', () => {
    expect(isReset([])).toBe(true);
    expect(isReset([{}])).toBe(true);
    expect(isReset(undefined)).toBe(false);
    expect(isReset([{ manager: 'a' }])).toBe(false);
    const entries = Array.from({ length: 12 }, (_, i) => ({
      manager: `m${i}`,
      operation: 'Update',
      apiVersion: 'v1',
      time: `2026-12-02T10:00:${String(i).padStart(2, '0')}Z`,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
    }));
    const m = decodeManagedFields(entries);
    capUpdateManagers(m);
    const names = encodeManagedFields(m)?.map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names).toContain('ancient-changes');
    expect(names).not.toContain('m0');
    expect(names).toContain('m11');
  });

  it('names the manager after the User-Agent like Kubernetes', () => {
    expect(prefixFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9')).toBe('kubectl');
    expect(prefixFromUserAgent('kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:x')).toBe('kube-controller-manager');
    expect(prefixFromUserAgent('a\u0007b')).toBe('ab');
    expect(prefixFromUserAgent('x'.repeat(300))).toHaveLength(128);
    expect(prefixFromUserAgent(undefined)).toBe('');
  });
});

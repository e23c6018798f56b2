import { describe, expect, it } from 'vitest';
import { R, StatusError } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { fieldsMatch, objectFields, parseFieldSelector, parseFieldSelectorFor, supportedFields } from './fields.ts';

const pod: KubeObject = {
  metadata: { name: 'web-1', namespace: 'default' },
  spec: { nodeName: 'node-1', restartPolicy: 'Always', hostNetwork: false },
  status: { phase: 'Running', podIP: '10.0.0.5' },
};
const event: KubeObject = {
  metadata: { name: 'e1', namespace: 'default' },
  involvedObject: { kind: 'Node', name: 'node-1', uid: 'node-1' },
  reason: 'Ready',
  source: { component: 'kubelet' },
  type: 'Normal',
};

describe('field selectors', () => {
  it.each([
    [R.pods, pod, '', true],
    [R.pods, pod, 'metadata.name=web-1', true],
    [R.pods, pod, 'metadata.name==web-1', true],
    [R.pods, pod, 'metadata.name!=web-1', false],
    [R.pods, pod, 'spec.nodeName=node-1,status.phase!=Succeeded,status.phase!=Failed', true],
    [R.pods, pod, 'spec.nodeName=node-2', false],
    [R.pods, pod, 'spec.nodeName=', false],
    [R.pods, { metadata: { name: 'p' }, spec: {} } as KubeObject, 'spec.nodeName=', true],
    [R.pods, pod, 'spec.hostNetwork=false', true],
    [R.pods, pod, 'status.podIP=10.0.0.5', true],
    [R.events, event, 'involvedObject.name=node-1,involvedObject.namespace=,involvedObject.uid=node-1', true],
    [R.events, event, 'involvedObject.kind=Pod', false],
    [R.events, event, 'source=kubelet,reason=Ready,type=Normal', true],
    [R.nodes, { metadata: { name: 'n' }, spec: { unschedulable: true } } as KubeObject, 'spec.unschedulable=true', true],
    [R.secrets, { metadata: { name: 's' }, type: 'Opaque' } as KubeObject, 'type=Opaque', true],
    [R.replicasets, { metadata: { name: 'r' }, status: { replicas: 3 } } as KubeObject, 'status.replicas=3', true],
    [R.configmaps, { metadata: { name: 'a,b', namespace: 'x' } } as KubeObject, 'metadata.name=a\\,b', true],
  ])('%s %j', (resource, obj, sel, want) => {
    expect(fieldsMatch(parseFieldSelectorFor(resource, sel), objectFields(resource, obj))).toBe(want);
  });

  it.each([
    [R.pods, 'spec.foo=bar', 'field label not supported: spec.foo'],
    [R.nodes, 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    [R.pods, 'nonsense', "invalid selector: 'nonsense'; can't understand 'nonsense'"],
  ])('%s %j → 400', (resource, sel, msg) => {
    let err: unknown;
    try {
      parseFieldSelectorFor(resource, sel);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toBe(msg);
  });

  it('lists the supported fields', () => {
    expect(supportedFields(R.pods)).toContain('status.nominatedNodeName');
    expect(supportedFields(R.namespaces)).toEqual(['metadata.name', 'status.phase']);
    expect(parseFieldSelector('a=b\\=c').requirements).toEqual([{ field: 'a', operator: '=', value: 'b=c' }]);
  });

  it('refuses an unescaped = or , in a value, as fields.UnescapeValue does', () => {
    for (const s of ['a=b=c', 'metadata.name==x==y', 'a!=b=c']) {
      expect(() => parseFieldSelector(s)).toThrowError(new StatusError('BadRequest', 'invalid field selector: unescaped character in value: 61'));
    }
    expect(() => parseFieldSelector('a=b\\x')).toThrowError('invalid field selector: invalid escape sequence: \\x');
  });
});

// URL layout: which paths name discovery documents, collections, objects and subresources.
import { R } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { parseTarget } from './target.ts';

describe('parseTarget', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['/api', { kind: 'root', prefix: 'api' }],
    ['/apis', { kind: 'root', prefix: 'apis' }],
    ['/apis/apps', { kind: 'group', group: 'apps' }],
    ['/api/v1', { kind: 'groupVersion', group: '', version: 'v1' }],
    ['/apis/apps/v1', { kind: 'groupVersion', group: 'apps', version: 'v1' }],
    ['/api/v1/pods', { kind: 'resource', resource: R.pods, watchPath: false }],
    ['/api/v1/namespaces', { kind: 'resource', resource: R.namespaces }],
    ['/api/v1/namespaces/default', { kind: 'resource', resource: R.namespaces, name: 'default' }],
    ['/api/v1/namespaces/default/status', { kind: 'resource', resource: R.namespaces, name: 'default', subresource: 'status' }],
    ['/api/v1/namespaces/default/finalize', { kind: 'resource', resource: R.namespaces, name: 'default', subresource: 'finalize' }],
    ['/api/v1/namespaces/default/pods', { kind: 'resource', resource: R.pods, namespace: 'default' }],
    ['/api/v1/namespaces/default/pods/x/binding', { kind: 'resource', resource: R.pods, namespace: 'default', name: 'x', subresource: 'binding' }],
    ['/apis/apps/v1/namespaces/ns/deployments/d/scale', { kind: 'resource', resource: R.deployments, namespace: 'ns', name: 'd', subresource: 'scale' }],
    ['/api/v1/nodes/n1/status', { kind: 'resource', resource: R.nodes, name: 'n1', subresource: 'status' }],
    ['/api/v1/watch/namespaces/default/pods', { kind: 'resource', resource: R.pods, namespace: 'default', watchPath: true }],
    ['/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l', { kind: 'resource', resource: R.leases, namespace: 'kube-system', name: 'l' }],
  ];
  for (const [path, want] of cases) {
    it(path, () => expect(parseTarget(path)).toMatchObject(want));
  }

  const notFound = ['/api/v1/namespaces/default/configmaps/x/..', '/api/v1/namespaces/default/configmaps/../../kube-system/configmaps', '/api/v2', '/apis/nope', '/apis/apps/v2', '/api/v1/widgets', '/api/v1/namespaces/a/nodes', '/api/v1/pods/x/nope', '/api/v1/pods/x/status/extra', '/other'];
  for (const path of notFound) {
    it(`${path} is a 404`, () => expect(() => parseTarget(path)).toThrow(expect.objectContaining({ code: 404 })));
  }

  // A client that sends the path as-is (curl --path-as-is) reaches the key function's path-segment check.
  for (const [path, message] of <[string, string][]>[
    ['/api/v1/namespaces/default/pods/..', 'Name parameter invalid: "..": may not be \'..\''],
    ['/api/v1/nodes/.', 'Name parameter invalid: ".": may not be \'.\''],
    ['/api/v1/namespaces/default/configmaps/a%2Fb', 'Name parameter invalid: "a/b": may not contain \'/\''],
    ['/api/v1/namespaces/default/configmaps/%2e%2e', 'Name parameter invalid: "..": may not be \'..\''],
    ['/api/v1/namespaces/../configmaps', 'Namespace parameter invalid: "..": may not be \'..\''],
    ['/api/v1/namespaces/%2E/configmaps/x', 'Namespace parameter invalid: ".": may not be \'.\''],
    ['/api/v1/watch/namespaces/a%25b/pods', 'Namespace parameter invalid: "a%b": may not contain \'%\''],
  ]) {
    it(`${path} is a 400`, () => expect(() => parseTarget(path)).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest', message })));
  }
});

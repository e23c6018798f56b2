import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, loadPolicyFile, parsePolicy } from './policy.ts';
import { requestAttributes } from './request-info.ts';

const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const kubelet = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz", "/livez"]
- level: None
  users: ["system:node:n1"]
  verbs: ["get", "update"]
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: RequestResponse
  resources: [{group: "", resources: ["pods/log", "*/status"]}]
- level: Request
  namespaces: [audited]
  resources: [{group: "", resources: [configmaps], resourceNames: [cfg]}]
- level: Metadata
  userGroups: [system:masters]
  verbs: [create, delete, deletecollection]
  omitStages: [ResponseComplete]
- level: Metadata
  resources: [{group: apps, resources: ["deployments/*"]}]
- level: RequestResponse
  nonResourceURLs: ["/version"]
`;

describe('audit policy evaluation', () => {
  const p = parsePolicy(POLICY);
  const cases: { name: string; method: string; url: string; user?: typeof admin; level: string; omit?: string[] }[] = [
    { name: 'health paths with * suffix are None', method: 'GET', url: '/healthz/etcd', level: 'None', omit: ['RequestReceived'] },
    { name: 'exact non-resource URL', method: 'GET', url: '/readyz', level: 'None' },
    { name: 'node lease renewals are None', method: 'PUT', url: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', user: kubelet, level: 'None' },
    { name: 'lease update by the admin is not that rule', method: 'PUT', url: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', level: 'None' },
    { name: 'pods/log subresource', method: 'GET', url: '/api/v1/namespaces/d/pods/p/log?follow=true', level: 'RequestResponse' },
    { name: '*/status matches any resource status', method: 'PUT', url: '/api/v1/nodes/n1/status', level: 'RequestResponse' },
    { name: 'plain pods are not pods/log', method: 'GET', url: '/api/v1/namespaces/d/pods/p', level: 'None' },
    { name: 'resourceNames and namespaces match', method: 'GET', url: '/api/v1/namespaces/audited/configmaps/cfg', level: 'Request' },
    { name: 'other name misses', method: 'GET', url: '/api/v1/namespaces/audited/configmaps/other', level: 'None' },
    { name: 'other namespace misses', method: 'GET', url: '/api/v1/namespaces/x/configmaps/cfg', level: 'None' },
    { name: 'userGroups and verbs; rule stages add to policy stages', method: 'POST', url: '/api/v1/namespaces/d/pods', level: 'Metadata', omit: ['RequestReceived', 'ResponseComplete'] },
    { name: 'deletecollection verb', method: 'DELETE', url: '/api/v1/namespaces/d/pods', level: 'Metadata' },
    { name: 'kubelet create is not in system:masters', method: 'POST', url: '/api/v1/namespaces/d/pods', user: kubelet, level: 'None' },
    { name: 'resource/* matches subresources only', method: 'GET', url: '/apis/apps/v1/namespaces/d/deployments/x/scale', level: 'Metadata' },
    { name: 'resource/* matches the resource itself too (as Kubernetes checks it)', method: 'GET', url: '/apis/apps/v1/namespaces/d/deployments/x', level: 'Metadata' },
    { name: 'non-resource rule does not match resource requests', method: 'GET', url: '/version', level: 'RequestResponse' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cfg = evaluate(p, requestAttributes(c.method, c.url, c.user ?? admin));
      expect(cfg.level).toBe(c.level);
      if (c.omit) expect([...cfg.omitStages].sort()).toEqual([...c.omit].sort());
    });
  }
});

describe('request attributes', () => {
  const cases: [string, string, Partial<ReturnType<typeof requestAttributes>>][] = [
    ['GET', '/api/v1/namespaces/d/pods?watch=true', { verb: 'watch', resource: 'pods', namespace: 'd', name: '' }],
    ['GET', '/api/v1/watch/namespaces/d/pods/p', { verb: 'watch', resource: 'pods', name: 'p' }],
    ['GET', '/api/v1/pods', { verb: 'list', namespace: '' }],
    ['GET', '/api/v1/namespaces/d/pods?fieldSelector=metadata.name%3Dp', { verb: 'list', name: 'p' }],
    ['GET', '/api/v1/namespaces/d', { verb: 'get', resource: 'namespaces', name: 'd' }],
    ['PUT', '/api/v1/namespaces/d/finalize', { verb: 'update', resource: 'namespaces', name: 'd', subresource: 'finalize' }],
    ['PATCH', '/apis/apps/v1/namespaces/d/deployments/x/scale', { verb: 'patch', apiGroup: 'apps', apiVersion: 'v1', subresource: 'scale' }],
    ['DELETE', '/api/v1/namespaces/d/pods', { verb: 'deletecollection' }],
    ['GET', '/apis/apps', { isResourceRequest: false, verb: 'get', path: '/apis/apps' }],
    ['POST', '/readyz', { isResourceRequest: false, verb: 'post' }],
  ];
  for (const [method, url, want] of cases) it(`${method} ${url}`, () => expect(requestAttributes(method, url, admin)).toMatchObject(want));
});

describe('audit policy loading', () => {
  const bad: [string, string][] = [
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'loaded illegal policy with 0 rules'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n', 'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- verbs: [get]\n', 'rules[0].level: Required value'],
    [
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [healthz, "/a*b"]\n  omitStages: [Sometime]\n',
      `[rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character, rules[0].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule, rules[0].omitStages[0]: Invalid value: "Sometime": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]`,
    ],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{resourceNames: [x]}]\n', 'rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  namespaces: [a]\n  nonResourceURLs: ["/x"]\n', 'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs'],
    ['apiVersion: audit.k8s.io/v2\nkind: Policy\nrules: []\n', 'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v2"'],
    ['rules: []\n', "failed decoding: Object 'Kind' is missing"],
  ];
  for (const [text, msg] of bad) it(`refuses: ${msg.slice(0, 60)}`, () => expect(() => parsePolicy(text)).toThrow(msg));

  it('reads JSON too, and names the file in errors', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'audit-policy-'));
    try {
      const f = path.join(dir, 'p.json');
      writeFileSync(f, JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }));
      expect(loadPolicyFile(f).rules[0]?.level).toBe('Metadata');
      writeFileSync(f, JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [] }));
      expect(() => loadPolicyFile(f)).toThrow(`loaded illegal policy with 0 rules: from file ${f}`);
      expect(() => loadPolicyFile(path.join(dir, 'nope'))).toThrow(`failed to read file path "${path.join(dir, 'nope')}"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifests, parseManifestText } from './manifests.ts';
import { addonMode } from './labels.ts';
import { AllowlistError, pruneAllowlist } from './prune-allowlist.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'addons-'));
  fs.mkdirSync(path.join(dir, 'dns'));
  fs.writeFileSync(
    path.join(dir, 'dns', 'coredns.yaml'),
    'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: coredns\n  namespace: kube-system\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n',
  );
  fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }] }));
  fs.writeFileSync(path.join(dir, 'README.md'), '# not a manifest\n');
  fs.writeFileSync(path.join(dir, 'broken.yml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('loadManifests', () => {
  it('reads .json/.yaml/.yml files recursively in lexical order, splits documents, flattens Lists, reports broken files', () => {
    const { manifests, errors } = loadManifests(dir);
    expect(manifests.map((m) => `${path.relative(dir, m.file)}:${m.object.kind}/${m.object.metadata.name}`)).toEqual([
      'a.json:Secret/s',
      'dns/coredns.yaml:ServiceAccount/coredns',
      'dns/coredns.yaml:ConfigMap/coredns',
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.file).toBe(path.join(dir, 'broken.yml'));
    expect(errors[0]?.message).toMatch(/^error converting YAML to JSON/);
  });

  it('a missing directory is one error naming the path', () => {
    const r = loadManifests(path.join(dir, 'nope'));
    expect(r.manifests).toEqual([]);
    expect(r.errors).toEqual([{ file: path.join(dir, 'nope'), message: `the path "${path.join(dir, 'nope')}" does not exist` }]);
  });

  it('refuses a document without apiVersion/kind or name, as kubectl validation does', () => {
    expect(parseManifestText('f', 'metadata:\n  name: x\n').errors[0]?.message).toBe('error validating data: [apiVersion not set, kind not set]');
    expect(parseManifestText('f', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n').errors[0]?.message).toBe('resource name may not be empty');
    expect(parseManifestText('f', '- 1\n').errors[0]?.message).toBe('a manifest must be an object');
  });
});

describe('addonMode', () => {
  const obj = (labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels } });
  it('classifies as the script selectors do, the deprecated cluster-service label included', () => {
    expect(addonMode(obj({ 'addonmanager.kubernetes.io/mode': 'Reconcile' }))).toBe('Reconcile');
    expect(addonMode(obj({ 'addonmanager.kubernetes.io/mode': 'EnsureExists' }))).toBe('EnsureExists');
    expect(addonMode(obj({ 'kubernetes.io/cluster-service': 'true' }))).toBe('Reconcile');
    expect(addonMode(obj({ 'kubernetes.io/cluster-service': 'true', 'addonmanager.kubernetes.io/mode': 'EnsureExists' }))).toBe('EnsureExists');
    expect(addonMode(obj({ 'addonmanager.kubernetes.io/mode': 'Ignore' }))).toBe('Ignore');
    expect(addonMode(obj({}))).toBe('Ignore');
  });
});

describe('pruneAllowlist', () => {
  it('is the script default plus extra entries; an unknown kind is refused by name', () => {
    const plurals = pruneAllowlist('rbac.authorization.k8s.io/v1/ClusterRole core/v1/ServiceAccount').map((r) => r.plural);
    expect(plurals).toContain('deployments');
    expect(plurals.slice(-2)).toEqual(['clusterroles', 'serviceaccounts']);
    expect(() => pruneAllowlist('apps/v1/Nope')).toThrow(AllowlistError);
    expect(() => pruneAllowlist('Deployment')).toThrow('invalid GroupVersionKind format: Deployment, please follow <group/version/kind>');
  });
});

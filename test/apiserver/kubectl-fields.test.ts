// The real kubectl against one kube-apiserver: server-side field validation (kubectl sends
// fieldValidation=Strict by default) and kubectl explain over the served OpenAPI v3 schemas, built-in kinds and
// a custom resource's (from its CRD's schema).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structNamed } from '../../packages/apiserver/src/schema/index.ts';
import { fieldsOf } from '../../packages/apiserver/src/schema/walk.ts';
import { api } from './cluster.ts';
import { crdObject, version } from '../../packages/apiserver/src/testing/crd.ts';
import { startKubectlCluster, type KubectlCluster } from './kubectl-cluster.ts';

let k: KubectlCluster;

beforeAll(async () => {
  k = await startKubectlCluster();
}, 60_000);
afterAll(async () => k?.stop());

const deployment = (name: string, specExtra: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
${specExtra}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: nginx, image: nginx}]
`;

describe('kubectl and field validation', () => {
  it('apply -f of a manifest with a typo fails with the strict decoding error, on create and on update', async () => {
    const file = path.join(k.dir, 'typo.yaml');
    writeFileSync(file, deployment('typo', '  replica: 2\n'));
    const r = await k.kubectl('apply', '-f', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.replica"');
    expect(r.stderr).toContain('Error from server (BadRequest)');
    expect((await api(`${k.A.url}/apis/apps/v1/namespaces/default/deployments/typo`, 'GET')).status).toBe(404);

    writeFileSync(file, deployment('typo', '  replicas: 2\n'));
    expect((await k.kubectl('apply', '-f', file)).stdout.trim()).toBe('deployment.apps/typo created');
    writeFileSync(file, deployment('typo', '  replicas: 3\n  paused2: true\n'));
    const u = await k.kubectl('apply', '-f', file);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('unknown field "spec.paused2"');
    const ssa = await k.kubectl('apply', '--server-side', '-f', file);
    expect(ssa.code).toBe(1);
    expect(ssa.stderr).toContain('.spec.paused2: field not declared in schema');
  });

  it('--validate=warn creates the object without the field and prints the server warning', async () => {
    const file = path.join(k.dir, 'warn.yaml');
    writeFileSync(file, deployment('warned', '  replica: 2\n'));
    const r = await k.kubectl('apply', '--validate=warn', '-f', file);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Warning: unknown field "spec.replica"');
    const d = await api(`${k.A.url}/apis/apps/v1/namespaces/default/deployments/warned`, 'GET');
    expect(d.status).toBe(200);
    expect((d.body.spec as Record<string, unknown>).replica).toBeUndefined();
  });
});

describe('kubectl explain', () => {
  it('prints the fields of pods, pods.spec.containers and deployment.spec.strategy', async () => {
    const p = await k.kubectl('explain', 'pods');
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/KIND:\s+Pod/);
    expect(p.stdout).toMatch(/VERSION:\s+v1/);
    expect(p.stdout.replace(/\s+/g, ' ')).toContain(structNamed('io.k8s.api.core.v1.Pod').description.replace(/\s+/g, ' '));
    for (const f of ['apiVersion', 'kind', 'metadata', 'spec', 'status']) expect(p.stdout).toMatch(new RegExp(`^\\s+${f}\\s+<`, 'm'));
    const c = await k.kubectl('explain', 'pods.spec.containers');
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/FIELD:\s+containers\s+<\[\]Container>/);
    for (const f of ['image', 'imagePullPolicy', 'ports', 'resources', 'livenessProbe']) expect(c.stdout).toMatch(new RegExp(`^\\s+${f}\\s+<`, 'm'));
    // The schema's descriptions: the field's own, and each of its fields' (kubectl wraps them).
    const words = (t: string) => t.replace(/\s+/g, ' ');
    const PodSpec = structNamed('io.k8s.api.core.v1.PodSpec');
    const Container = structNamed('io.k8s.api.core.v1.Container');
    const described = [fieldsOf(PodSpec).fields.get('containers'), ...['image', 'ports', 'livenessProbe'].map((f) => fieldsOf(Container).fields.get(f))].map((f) => f?.description ?? '');
    for (const d of described) {
      expect(d).not.toBe('');
      expect(words(c.stdout)).toContain(words(d));
    }
    const s = await k.kubectl('explain', 'deployment.spec.strategy');
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/GROUP:\s+apps/);
    expect(s.stdout).toMatch(/^\s+rollingUpdate\s+<RollingUpdateDeployment>/m);
    expect(s.stdout).toMatch(/^\s+type\s+<string>/m);
    const r = await k.kubectl('explain', 'pods', '--recursive');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nodeName');
  });
});

// kubectl apply takes JSON as well as YAML.
const GIZMO_CRD = JSON.stringify(
  crdObject({
    group: 'explain.example.com',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      version('v1', {
        type: 'object',
        properties: { spec: { type: 'object', description: 'What the gizmo does.', properties: { size: { type: 'integer', description: 'How big the gizmo is.' }, color: { type: 'string' } } } },
      }),
    ],
  }),
);

describe('kubectl explain and field validation of a custom resource', () => {
  it('explain walks the CRD schema; apply refuses an unknown field with the strict decoding error', async () => {
    const file = path.join(k.dir, 'gizmo-crd.json');
    writeFileSync(file, GIZMO_CRD);
    expect((await k.kubectl('apply', '-f', file)).code).toBe(0);
    // kubectl finds the kind through discovery and its schema in /openapi/v3 once the CRD is served.
    let e = await k.kubectl('explain', 'gizmo.spec');
    for (let i = 0; i < 50 && e.code !== 0; i++) e = await k.kubectl('explain', 'gizmo.spec');
    expect(e.stderr).toBe('');
    expect(e.stdout).toMatch(/GROUP:\s+explain\.example\.com/);
    expect(e.stdout).toMatch(/KIND:\s+Gizmo/);
    expect(e.stdout).toMatch(/FIELD:\s+spec\s+<Object>/);
    expect(e.stdout).toContain('What the gizmo does.');
    expect(e.stdout).toMatch(/^\s+color\s+<string>/m);
    expect(e.stdout).toMatch(/^\s+size\s+<integer>\n\s+How big the gizmo is\./m);
    const top = await k.kubectl('explain', 'gizmos');
    expect(top.stdout).toMatch(/^\s+metadata\s+<ObjectMeta>/m);
    const obj = path.join(k.dir, 'gizmo.yaml');
    writeFileSync(obj, 'apiVersion: explain.example.com/v1\nkind: Gizmo\nmetadata: {name: g}\nspec: {size: 2, shape: round}\n');
    const bad = await k.kubectl('apply', '-f', obj);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('strict decoding error: unknown field "spec.shape"');
  });
});

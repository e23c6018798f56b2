// The real kubectl doing server-side apply against one kube-apiserver: create then unchanged re-apply,
// kubectl scale taking spec.replicas, the re-apply's conflict as kubectl prints it, --force-conflicts,
// and the managedFields kubectl shows after client-side operations.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startCluster, type Cluster, type Replica } from './cluster.ts';
import { kubectlEnv, runKubectl } from '../support/kubectl.ts';

let cluster: Cluster;
let A: Replica;
let env: NodeJS.ProcessEnv;

const kubectl = (...args: string[]) => runKubectl(env, args);

beforeAll(async () => {
  cluster = await startCluster(1);
  A = cluster.replicas[0] as Replica;
  env = kubectlEnv(cluster.dir, cluster.kubeconfig(A));
}, 60_000);
afterAll(async () => cluster?.stop());

function manifest(name: string, replicas: number): string {
  const file = path.join(cluster.dir, `${name}.yaml`);
  writeFileSync(
    file,
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: nginx, image: nginx}]
`,
  );
  return file;
}

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: { 'f:spec'?: Record<string, unknown> };
}

async function entries(name: string): Promise<Entry[]> {
  const d = await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/${name}`, 'GET');
  return (d.body.metadata as { managedFields?: Entry[] }).managedFields ?? [];
}

describe('kubectl apply --server-side', () => {
  it('applies twice, conflicts after kubectl scale, and takes replicas back with --force-conflicts', async () => {
    const file = manifest('web', 2);
    const first = await kubectl('apply', '--server-side', '-f', file);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    const rv = (await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET')).body.metadata.resourceVersion;
    const second = await kubectl('apply', '--server-side', '-f', file);
    expect(second.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    expect((await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET')).body.metadata.resourceVersion).toBe(rv);
    expect((await entries('web')).map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl/Apply']);

    expect((await kubectl('scale', 'deployment', 'web', '--replicas=5')).stdout.trim()).toBe('deployment.apps/web scaled');
    const scaled = (await entries('web')).find((e) => e.subresource === 'scale');
    expect(scaled).toMatchObject({ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });

    const conflict = await kubectl('apply', '--server-side', '-f', file);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
    expect(conflict.stderr).toContain('--force-conflicts');
    expect((await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET')).body.spec).toMatchObject({ replicas: 5 });

    const forced = await kubectl('apply', '--server-side', '--force-conflicts', '-f', file);
    expect(forced.stdout.trim()).toBe('deployment.apps/web serverside-applied');
    expect((await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET')).body.spec).toMatchObject({ replicas: 2 });
    const after = await entries('web');
    expect(after.map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl/Apply']);
    expect(after[0]?.fieldsV1['f:spec']?.['f:replicas']).toEqual({});
  });

  it('apply, a new image, rollout undo, scale, then apply again: no conflict on the template kubectl rolled back', async () => {
    const file = (image: string) => {
      const f = path.join(cluster.dir, `undo-${image.replace(/\W/g, '-')}.yaml`);
      writeFileSync(f, `apiVersion: apps/v1
kind: Deployment
metadata: {name: undo}
spec:
  selector: {matchLabels: {app: undo}}
  template:
    metadata: {labels: {app: undo}}
    spec:
      containers: [{name: nginx, image: ${image}}]
`);
      return f;
    };
    expect((await kubectl('apply', '--server-side', '-f', file('nginx:1'))).code).toBe(0);
    expect((await kubectl('apply', '--server-side', '-f', file('nginx:2'))).code).toBe(0);
    // The ReplicaSets the deployment controller would have made for revisions 1 and 2 (no controller-manager
    // runs here): kubectl rollout undo reads the previous one's template.
    const d = await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/undo`, 'GET');
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'undo', uid: (d.body.metadata as { uid: string }).uid, controller: true, blockOwnerDeletion: true };
    for (const [rev, image, hash] of [['1', 'nginx:1', 'aaa1'], ['2', 'nginx:2', 'bbb2']] as const) {
      const labels = { app: 'undo', 'pod-template-hash': hash };
      const rs = await api(`${A.url}/apis/apps/v1/namespaces/default/replicasets`, 'POST', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: `undo-${hash}`, labels, annotations: { 'deployment.kubernetes.io/revision': rev }, ownerReferences: [owner] },
        spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image }] } } },
      });
      expect(rs.status, rs.text).toBe(201);
    }
    // …and the revision annotation it keeps on the Deployment (kubectl's patch replaces the annotations).
    const annotated = await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/undo?fieldManager=kube-controller-manager`, 'PATCH', { metadata: { annotations: { 'deployment.kubernetes.io/revision': '2' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(annotated.status, annotated.text).toBe(200);
    const undo = await kubectl('rollout', 'undo', 'deployment/undo');
    expect(undo.stdout.trim(), undo.stderr).toBe('deployment.apps/undo rolled back');
    expect((await kubectl('scale', 'deployment', 'undo', '--replicas=3')).stdout.trim()).toBe('deployment.apps/undo scaled');
    const scaled = (await entries('undo')).find((e) => e.subresource === 'scale');
    expect(scaled?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    const again = await kubectl('apply', '--server-side', '-f', file('nginx:1'));
    expect(again.stderr).toBe('');
    expect(again.stdout.trim()).toBe('deployment.apps/undo serverside-applied');
    expect((await api(`${A.url}/apis/apps/v1/namespaces/default/deployments/undo`, 'GET')).body.spec).toMatchObject({ replicas: 3 });
  });

  it('client-side apply, create and edit-like patches leave kubectl-named Update entries', async () => {
    const file = manifest('csa', 1);
    expect((await kubectl('apply', '-f', file)).stdout.trim()).toBe('deployment.apps/csa created');
    expect((await entries('csa')).map((e) => `${e.manager}/${e.operation}`)).toEqual(['kubectl-client-side-apply/Update']);
    expect((await kubectl('label', 'deployment', 'csa', 'tier=web')).stdout.trim()).toBe('deployment.apps/csa labeled');
    const shown = await kubectl('get', 'deployment', 'csa', '-o', 'yaml', '--show-managed-fields');
    expect(shown.stdout).toContain('manager: kubectl-client-side-apply');
    expect(shown.stdout).toContain('manager: kubectl-label');
    expect(shown.stdout).toContain('f:tier: {}');
    expect((await kubectl('create', 'configmap', 'made', '--from-literal=a=1')).code).toBe(0);
    const cm = await api(`${A.url}/api/v1/namespaces/default/configmaps/made`, 'GET');
    expect((cm.body.metadata as { managedFields?: Entry[] }).managedFields?.map((e) => e.manager)).toEqual(['kubectl-create']);
  });
});

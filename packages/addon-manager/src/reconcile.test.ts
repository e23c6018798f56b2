// The reconcile decisions against a real (in-process) apiserver: Reconcile applied and its drift reverted,
// EnsureExists created once and never updated, unlabelled manifests ignored, removed manifests pruned (only
// allowlisted kinds we applied), and no pruning after an error.
import { R, type KubeObject } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { RestClient } from '@kemu/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../../apiserver/src/testing/memory-server.ts';
import type { ApiServer } from '../../apiserver/src/server.ts';
import type { LoadedManifests } from './manifests.ts';
import { AddonReconciler } from './reconcile.ts';

let srv: ApiServer;
let client: RestClient;

beforeAll(async () => {
  srv = await startMemoryApiServer();
  const url = await srv.app.listen({ host: '127.0.0.1', port: 0 });
  client = new RestClient({ server: url, qps: -1 }, { maxRetries: 0 });
});
afterAll(async () => {
  await client?.close();
  await srv?.close();
});

const MODE = 'addonmanager.kubernetes.io/mode';

function deployment(name: string, replicas: number, namespace = 'kube-system'): KubeObject {
  const labels = { 'k8s-app': name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { ...labels, [MODE]: 'Reconcile' } },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name, image: 'registry.k8s.io/pause:3.10' }] } },
    },
  };
}
function configMap(name: string, data: Record<string, string>, labels: Record<string, string>, namespace = 'kube-system'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data };
}
const loaded = (...objects: KubeObject[]): LoadedManifests => ({ manifests: objects.map((object, index) => ({ file: `/addons/${index}.yaml`, index, object })), errors: [] });
// Each case works in a namespace of its own, as a pass prunes in the namespaces it applies to.
const get = (r: typeof R.deployments, name: string, ns = 'kube-system') => client.get<KubeObject & { spec: { replicas: number }; data?: Record<string, string> }>(r, ns, name);

describe('AddonReconciler', () => {
  it('applies Reconcile objects and reverts drift on the next pass; fields the manifest does not set stay', async () => {
    const rec = new AddonReconciler({ client, logger: silentLogger() });
    const set = loaded(deployment('dns', 2), configMap('ignored', { a: '1' }, {}));
    let report = await rec.cycle(set);
    expect(report.errors).toEqual([]);
    expect(report.applied).toEqual(['deployment.apps/dns created']);
    expect(report.ignored).toEqual(['ConfigMap/ignored in /addons/1.yaml']);
    expect((await get(R.deployments, 'dns')).spec.replicas).toBe(2);
    await expect(client.get(R.configmaps, 'kube-system', 'ignored')).rejects.toMatchObject({ reason: 'NotFound' });

    // A user scales it and adds a label of their own.
    await client.patch(R.deployments, 'kube-system', 'dns', { spec: { replicas: 5 }, metadata: { labels: { extra: 'mine' } } }, 'merge', { fieldManager: 'kubectl-edit' });
    report = await rec.cycle(set);
    expect(report.applied).toEqual(['deployment.apps/dns configured']);
    const live = await get(R.deployments, 'dns');
    expect(live.spec.replicas).toBe(2);
    expect(live.metadata.labels?.extra).toBe('mine');

    report = await rec.cycle(set);
    expect(report.applied).toEqual(['deployment.apps/dns unchanged']);
  });

  it('creates EnsureExists objects when missing and never updates them', async () => {
    const rec = new AddonReconciler({ client, logger: silentLogger() });
    const ensure = configMap('settings', { level: 'default' }, { [MODE]: 'EnsureExists' }, 'kube-public');
    let report = await rec.cycle(loaded(ensure));
    expect(report.created).toEqual(['configmap/settings']);
    await client.patch(R.configmaps, 'kube-public', 'settings', { data: { level: 'user' } }, 'merge', { fieldManager: 'kubectl-edit' });
    report = await rec.cycle(loaded(ensure));
    expect(report.created).toEqual([]);
    expect(report.errors).toEqual([]);
    expect((await get(R.configmaps, 'settings', 'kube-public')).data).toEqual({ level: 'user' });
    // Deleted by a user: created again on the next pass.
    await client.delete(R.configmaps, 'kube-public', 'settings');
    report = await rec.cycle(loaded(ensure));
    expect(report.created).toEqual(['configmap/settings']);
    expect((await get(R.configmaps, 'settings', 'kube-public')).data).toEqual({ level: 'default' });
  });

  it('prunes a Reconcile object whose manifest is gone, but not kinds outside the allowlist nor objects it never applied', async () => {
    const rec = new AddonReconciler({ client, logger: silentLogger() });
    const keep = configMap('keep', { k: 'v' }, { [MODE]: 'Reconcile' }, 'default');
    const gone = configMap('gone', { k: 'v' }, { [MODE]: 'Reconcile' }, 'default');
    const goneDeploy = deployment('gone', 1, 'default');
    const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'addon-sa', namespace: 'default', labels: { [MODE]: 'Reconcile' } } };
    expect((await rec.cycle(loaded(keep, gone, goneDeploy, sa))).errors).toEqual([]);
    // Labelled like an addon, but created by someone else: not ours to prune.
    await client.create(R.configmaps, 'default', configMap('foreign', {}, { [MODE]: 'Reconcile' }, 'default'));

    // A broken file in the directory: apply the rest, prune nothing (kubectl apply prunes only after an error-free run).
    const broken: LoadedManifests = { ...loaded(keep), errors: [{ file: '/addons/bad.yaml', message: 'error converting YAML to JSON' }] };
    let report = await rec.cycle(broken);
    expect(report.pruned).toEqual([]);
    expect(report.pruneSkipped).toMatch(/error/);
    await client.get(R.configmaps, 'default', 'gone');

    report = await rec.cycle(loaded(keep));
    expect(report.errors).toEqual([]);
    expect(report.pruned).toEqual(['configmap/gone', 'deployment.apps/gone']);
    await expect(client.get(R.configmaps, 'default', 'gone')).rejects.toMatchObject({ reason: 'NotFound' });
    await client.get(R.configmaps, 'default', 'foreign');
    await client.get(R.serviceaccounts, 'default', 'addon-sa'); // ServiceAccount is not in the default prune allowlist
    await client.get(R.configmaps, 'default', 'keep');
  });

  it('an unknown kind is an error naming the file, and the other manifests still apply', async () => {
    const rec = new AddonReconciler({ client, logger: silentLogger() });
    const bogus: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { [MODE]: 'Reconcile' } } };
    const report = await rec.cycle(loaded(bogus, configMap('other', {}, { [MODE]: 'Reconcile' }, 'kube-node-lease')));
    expect(report.errors).toEqual(['error: resource mapping not found for name: "w" namespace: "" from "/addons/0.yaml": no matches for kind "Widget" in version "example.com/v1"']);
    expect(report.applied).toEqual(['configmap/other created']);
    expect(report.pruned).toEqual([]);
  });
});

// Three kube-apiserver processes on one SQLite file behave as one API: reads see other replicas'
// writes at once, a watch on one replica sees every write made through the others in resourceVersion
// order, and a watcher can resume on another replica from its last resourceVersion without a gap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { api, readWatch, startCluster, type Cluster, type Replica } from './cluster.ts';
import { startAggregatedServer, WARDLE_GROUP } from '../../packages/apiserver/src/testing/aggregated-server.ts';
import { crdObject, version } from '../../packages/apiserver/src/testing/crd.ts';

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

let cluster: Cluster;
let A: Replica, B: Replica, C: Replica;

beforeAll(async () => {
  cluster = await startCluster(3);
  [A, B, C] = cluster.replicas as [Replica, Replica, Replica];
}, 60_000);
afterAll(async () => cluster?.stop());

const cms = '/api/v1/namespaces/default/configmaps';

describe('three replicas on one store', () => {
  it('each replica registers its identity Lease and the bootstrap objects exist once', async () => {
    const leases = await api(`${B.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver`, 'GET');
    const hosts = leases.body.items?.map((l) => (l.metadata.labels as Record<string, string> | undefined)?.['kubernetes.io/hostname']).sort();
    expect(hosts).toEqual(['apiserver-0', 'apiserver-1', 'apiserver-2']);
    for (const l of leases.body.items ?? []) expect(l.metadata.name).toMatch(/^apiserver-[a-z2-7]{26}$/);
    const ns = await api(`${C.url}/api/v1/namespaces`, 'GET');
    expect(ns.body.items?.map((n) => n.metadata.name).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const svc = await api(`${A.url}/api/v1/namespaces/default/services/kubernetes`, 'GET');
    expect((svc.body.spec as { clusterIP: string }).clusterIP).toBe('10.96.0.1');
  });

  it('an object written through one replica is read through the others at once', async () => {
    const c = await api(`${A.url}${cms}`, 'POST', { metadata: { name: 'shared' }, data: { v: '1' } });
    expect(c.status).toBe(201);
    for (const r of [B, C]) {
      const g = await api(`${r.url}${cms}/shared`, 'GET');
      expect(g.status).toBe(200);
      expect(g.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
    }
    const stale = await api(`${C.url}${cms}/shared`, 'PUT', { ...c.body, data: { v: '2' } });
    expect(stale.status).toBe(200);
    const conflict = await api(`${B.url}${cms}/shared`, 'PUT', { ...c.body, data: { v: '3' } });
    expect(conflict.status).toBe(409);
  });

  it('a consistent list on one replica includes a write just made through another', async () => {
    for (let i = 0; i < 20; i++) {
      const c = await api(`${(i % 2 ? A : C).url}/api/v1/namespaces/default/secrets`, 'POST', { metadata: { name: `ryw-${i}` } });
      expect(c.status).toBe(201);
      const l = await api(`${B.url}/api/v1/namespaces/default/secrets`, 'GET');
      expect(l.body.items?.some((x) => x.metadata.name === `ryw-${i}`)).toBe(true);
      expect(Number(l.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(c.body.metadata.resourceVersion));
    }
  });

  it('a watch on B sees every write through A and C in order, none lost or doubled', async () => {
    const start = (await api(`${B.url}${cms}`, 'GET')).body.metadata.resourceVersion;
    const N = 60;
    const watching = readWatch(`${B.url}${cms}?watch=true&resourceVersion=${start}`, (evs) => evs.length >= N);
    const rvs: number[] = [];
    await Promise.all(
      [A, C].map(async (r, k) => {
        for (let i = 0; i < N / 2; i++) {
          const res = await api(`${r.url}${cms}`, 'POST', { metadata: { name: `w-${k}-${i}` } });
          expect(res.status).toBe(201);
          rvs.push(Number(res.body.metadata.resourceVersion));
        }
      }),
    );
    const events = await watching;
    const seen = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(seen).toEqual([...rvs].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.object.metadata.name)).size).toBe(N);
  });

  it('a watcher that reconnects to another replica with its last RV continues without a gap', async () => {
    const start = (await api(`${A.url}${cms}`, 'GET')).body.metadata.resourceVersion;
    for (let i = 0; i < 5; i++) await api(`${A.url}${cms}`, 'POST', { metadata: { name: `re-a-${i}` } });
    const first = await readWatch(`${A.url}${cms}?watch=true&resourceVersion=${start}`, (evs) => evs.length >= 3);
    const last = first[2]?.object.metadata.resourceVersion;
    for (let i = 0; i < 5; i++) await api(`${B.url}${cms}`, 'POST', { metadata: { name: `re-b-${i}` } });
    const second = await readWatch(`${C.url}${cms}?watch=true&resourceVersion=${last}`, (evs) => evs.length >= 7);
    const names = [...first.slice(0, 3), ...second].map((e) => e.object.metadata.name);
    expect(names).toEqual([0, 1, 2, 3, 4].map((i) => `re-a-${i}`).concat([0, 1, 2, 3, 4].map((i) => `re-b-${i}`)));
  });

  it('a CRD created through A is served by B and C within two seconds, and an object created through B is read on C', async () => {
    const crd = crdObject({ group: 'replicas.example.com', names: { plural: 'widgets', kind: 'Widget', shortNames: ['wg'] }, versions: [version('v1', OPEN)] });
    const created = await api(`${A.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, 'POST', crd);
    expect(created.status).toBe(201);
    const since = Date.now();
    const widgets = '/apis/replicas.example.com/v1/namespaces/default/widgets';
    for (const r of [B, C]) {
      while ((await api(`${r.url}${widgets}`, 'GET')).status !== 200) {
        // After the create's event come the naming decision and Established (two status writes), as in Kubernetes.
        expect(Date.now() - since).toBeLessThan(2_000);
        await new Promise((res) => setTimeout(res, 20));
      }
    }
    const w = await api(`${B.url}${widgets}`, 'POST', { apiVersion: 'replicas.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } });
    expect(w.status).toBe(201);
    const read = await api(`${C.url}${widgets}/w1`, 'GET');
    expect(read.status).toBe(200);
    expect(read.body.metadata.resourceVersion).toBe(w.body.metadata.resourceVersion);
    expect((read.body.spec as { size: number }).size).toBe(3);
  });

  it('a two-version CRD created through A: an object written through B in one version is read on C in the other', async () => {
    const crd = crdObject({ group: 'replicas.example.com', names: { plural: 'gauges', kind: 'Gauge' }, versions: [version('v1beta1', OPEN, { storage: false }), version('v1', OPEN)] });
    expect((await api(`${A.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, 'POST', crd)).status).toBe(201);
    const at = (v: string) => `/apis/replicas.example.com/${v}/namespaces/default/gauges`;
    const deadline = Date.now() + 10_000;
    for (const [r, v] of [[B, 'v1beta1'], [C, 'v1']] as const) {
      while ((await api(`${r.url}${at(v)}`, 'GET')).status !== 200) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((res) => setTimeout(res, 20));
      }
    }
    const g = await api(`${B.url}${at('v1beta1')}`, 'POST', { apiVersion: 'replicas.example.com/v1beta1', kind: 'Gauge', metadata: { name: 'g1' }, spec: { level: 2 } });
    expect(g.status).toBe(201);
    const read = await api(`${C.url}${at('v1')}/g1`, 'GET');
    expect(read.body).toMatchObject({ apiVersion: 'replicas.example.com/v1', kind: 'Gauge', spec: { level: 2 } });
    expect(read.body.metadata.resourceVersion).toBe(g.body.metadata.resourceVersion);
    const listed = await api(`${C.url}${at('v1beta1')}?resourceVersion=${g.body.metadata.resourceVersion}`, 'GET');
    expect((listed.body.items as { apiVersion: string }[]).map((i) => i.apiVersion)).toEqual(['replicas.example.com/v1beta1']);
  });

  it('an APIService created through A is Available, and its aggregated server is reached and discovered through B and C', async () => {
    const stub = await startAggregatedServer({ service: { name: 'replicas-api', namespace: 'default' } });
    const apiServices = '/apis/apiregistration.k8s.io/v1/apiservices';
    try {
      await api(`${A.url}/api/v1/namespaces/default/services`, 'POST', { metadata: { name: 'replicas-api' }, spec: { ports: [{ port: 443, targetPort: stub.port }] } });
      await api(`${A.url}/api/v1/namespaces/default/endpoints`, 'POST', { metadata: { name: 'replicas-api' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: stub.port }] }] });
      const spec = { group: WARDLE_GROUP, version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, caBundle: stub.caBundle, service: { namespace: 'default', name: 'replicas-api' } };
      expect((await api(`${A.url}${apiServices}`, 'POST', { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `v1alpha1.${WARDLE_GROUP}` }, spec })).status).toBe(201);
      const flunders = `/apis/${WARDLE_GROUP}/v1alpha1/namespaces/default/flunders`;
      const made = await waitFor('flunders served through B', async () => {
        const r = await api(`${B.url}${flunders}`, 'POST', { apiVersion: `${WARDLE_GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name: 'f1' } });
        return r.status === 201 ? r : undefined;
      }, 20_000, 100);
      expect(made.body.metadata.name).toBe('f1');
      await waitFor('the group in discovery on C', async () => (await api(`${C.url}/apis`, 'GET')).text.includes(`"${WARDLE_GROUP}"`), 20_000, 100);
      const list = await api(`${C.url}${flunders}`, 'GET');
      expect(list.body.items?.map((f) => f.metadata.name)).toEqual(['f1']);
      // The built-in groups' local APIServices exist once, whichever replica made them.
      const all = await api(`${C.url}${apiServices}`, 'GET');
      const names = all.body.items?.map((o) => o.metadata.name) ?? [];
      expect(names.filter((n) => n === 'v1.apps')).toHaveLength(1);
      expect(new Set(names).size).toBe(names.length);
    } finally {
      await api(`${A.url}${apiServices}/v1alpha1.${WARDLE_GROUP}`, 'DELETE');
      await stub.close();
    }
  });
});

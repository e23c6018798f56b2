// Each verb over real HTTP against a kube-apiserver process, with Kubernetes' status codes and bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startCluster, startReplica, type Cluster, type Replica } from './cluster.ts';

let cluster: Cluster;
let A: Replica;
let U: string;

beforeAll(async () => {
  cluster = await startCluster(1, ['--watch-bookmark-interval=1s', '--identity-lease-renew-interval=200ms']);
  A = cluster.replicas[0] as Replica;
  U = A.url;
}, 60_000);
afterAll(async () => cluster?.stop());

const deploy = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const D = '/apis/apps/v1/namespaces/default/deployments';

describe('verbs', () => {
  it('POST 201, GET 200, PUT 200, stale PUT 409, DELETE 200 Status, GET 404', async () => {
    const c = await api(`${U}${D}`, 'POST', deploy('v1'));
    expect(c.status).toBe(201);
    expect(c.body.metadata.generation).toBe(1);
    const g = await api(`${U}${D}/v1`, 'GET');
    expect(g.status).toBe(200);
    const put = await api(`${U}${D}/v1`, 'PUT', { ...g.body, spec: { ...(g.body.spec as object), replicas: 2 } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.generation).toBe(2);
    const stale = await api(`${U}${D}/v1`, 'PUT', g.body);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(stale.body.message).toBe('Operation cannot be fulfilled on deployments.apps "v1": the object has been modified; please apply your changes to the latest version and try again');
    const del = await api(`${U}${D}/v1`, 'DELETE');
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'v1', group: 'apps', kind: 'deployments' } });
    const nf = await api(`${U}${D}/v1`, 'GET');
    expect(nf.status).toBe(404);
    expect(nf.body.message).toBe('deployments.apps "v1" not found');
  });

  it('PATCH: merge, JSON and strategic merge patches', async () => {
    await api(`${U}${D}`, 'POST', deploy('p1'));
    const m = await api(`${U}${D}/p1`, 'PATCH', { metadata: { labels: { x: 'y' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(m.status).toBe(200);
    expect(m.body.metadata.labels).toMatchObject({ x: 'y' });
    const j = await api(`${U}${D}/p1`, 'PATCH', [{ op: 'replace', path: '/spec/replicas', value: 4 }], { 'content-type': 'application/json-patch+json' });
    expect(j.status).toBe(200);
    expect((j.body.spec as { replicas: number }).replicas).toBe(4);
    const s = await api(`${U}${D}/p1`, 'PATCH', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(s.status).toBe(200);
    const containers = (s.body.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers;
    expect(containers.map((c) => c.image)).toEqual(['nginx:2']);
    const nf = await api(`${U}${D}/nope`, 'PATCH', {}, { 'content-type': 'application/merge-patch+json' });
    expect(nf.status).toBe(404);
    const bad = await api(`${U}${D}/p1`, 'PATCH', {}, { 'content-type': 'text/plain' });
    expect(bad.status).toBe(415);
  });

  it('server-side apply: 201 then 200; fieldManager is required (422)', async () => {
    const headers = { 'content-type': 'application/apply-patch+yaml' };
    const first = await api(`${U}${D}/ssa?fieldManager=test`, 'PATCH', deploy('ssa', 2), headers);
    expect(first.status).toBe(201);
    const again = await api(`${U}${D}/ssa?fieldManager=test`, 'PATCH', deploy('ssa', 3), headers);
    expect(again.status).toBe(200);
    expect((again.body.spec as { replicas: number }).replicas).toBe(3);
    const noMgr = await api(`${U}${D}/ssa`, 'PATCH', deploy('ssa', 3), headers);
    expect(noMgr.status).toBe(422);
  });

  it('status only changes through /status; scale through /scale', async () => {
    await api(`${U}${D}`, 'POST', deploy('st'));
    const cur = (await api(`${U}${D}/st`, 'GET')).body;
    const main = await api(`${U}${D}/st`, 'PUT', { ...cur, status: { replicas: 9 } });
    expect(main.body.status).not.toMatchObject({ replicas: 9 });
    const st = await api(`${U}${D}/st/status`, 'PUT', { ...main.body, status: { replicas: 1, observedGeneration: 1 } });
    expect(st.status).toBe(200);
    expect(st.body.status).toMatchObject({ replicas: 1 });
    const sc = await api(`${U}${D}/st/scale`, 'GET');
    expect(sc.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 }, status: { replicas: 1, selector: 'app=st' } });
    const up = await api(`${U}${D}/st/scale`, 'PATCH', { spec: { replicas: 7 } }, { 'content-type': 'application/merge-patch+json' });
    expect(up.status).toBe(200);
    expect(up.body.spec).toEqual({ replicas: 7 });
    expect(((await api(`${U}${D}/st`, 'GET')).body.spec as { replicas: number }).replicas).toBe(7);
  });

  it('DELETE preconditions, propagationPolicy Foreground, deletecollection, dryRun', async () => {
    const c = await api(`${U}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'pre', labels: { grp: 'x' } } });
    const wrongUid = await api(`${U}/api/v1/namespaces/default/configmaps/pre`, 'DELETE', { preconditions: { uid: 'nope' } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.message).toContain('Precondition failed: UID in precondition: nope');
    const dry = await api(`${U}/api/v1/namespaces/default/configmaps/pre?dryRun=All`, 'DELETE');
    expect(dry.status).toBe(200);
    expect((await api(`${U}/api/v1/namespaces/default/configmaps/pre`, 'GET')).status).toBe(200);
    const fg = await api(`${U}/api/v1/namespaces/default/configmaps/pre`, 'DELETE', { propagationPolicy: 'Foreground', preconditions: { uid: c.body.metadata.uid } });
    expect(fg.status).toBe(200);
    expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(fg.body.metadata.deletionTimestamp).toBeTruthy();
    for (const n of ['dc1', 'dc2']) await api(`${U}/api/v1/namespaces/default/secrets`, 'POST', { metadata: { name: n, labels: { grp: 'dc' } } });
    const dc = await api(`${U}/api/v1/namespaces/default/secrets?labelSelector=grp%3Ddc`, 'DELETE');
    expect(dc.status).toBe(200);
    expect(dc.body.items).toHaveLength(2);
    expect((await api(`${U}/api/v1/namespaces/default/secrets?labelSelector=grp%3Ddc`, 'GET')).body.items).toHaveLength(0);
  });

  it('pods: eviction, log, binding via bindings, field selectors', async () => {
    const pod = { metadata: { name: 'ev' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    expect((await api(`${U}/api/v1/namespaces/default/pods`, 'POST', pod)).status).toBe(201);
    const b = await api(`${U}/api/v1/namespaces/default/bindings`, 'POST', { metadata: { name: 'ev' }, target: { kind: 'Node', name: 'n1' } });
    expect(b.status).toBe(201);
    const sel = await api(`${U}/api/v1/pods?fieldSelector=spec.nodeName%3Dn1`, 'GET');
    expect(sel.body.items?.map((p) => p.metadata.name)).toEqual(['ev']);
    // The log is the node's kubelet's; a node that does not exist has none to ask (pod-log.test.ts has the rest).
    const log = await api(`${U}/api/v1/namespaces/default/pods/ev/log`, 'GET');
    expect([log.status, log.body.message]).toEqual([404, 'nodes "n1" not found']);
    const ev = await api(`${U}/api/v1/namespaces/default/pods/ev/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'ev' }, deleteOptions: { gracePeriodSeconds: 0 } });
    expect(ev.status).toBe(201);
    expect((await api(`${U}/api/v1/namespaces/default/pods/ev`, 'GET')).status).toBe(404);
  });

  it('Services get a ClusterIP and NodePorts from the flags\' ranges; admission defaults pods', async () => {
    const svc = await api(`${U}/api/v1/namespaces/default/services`, 'POST', { metadata: { name: 'np' }, spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] } });
    expect(svc.status).toBe(201);
    const spec = svc.body.spec as { clusterIP: string; ports: { nodePort: number }[] };
    expect(spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(spec.clusterIP).not.toBe('10.96.0.1');
    expect(spec.ports[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(spec.ports[0]?.nodePort).toBeLessThanOrEqual(32767);
    const taken = await api(`${U}/api/v1/namespaces/default/services`, 'POST', { metadata: { name: 'dup' }, spec: { clusterIP: spec.clusterIP, ports: [{ port: 80 }] } });
    expect(taken.status).toBe(422);
    const pod = await api(`${U}/api/v1/namespaces/default/pods`, 'POST', { metadata: { name: 'adm' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(pod.status).toBe(201);
    const tolerations = (pod.body.spec as { tolerations?: { key: string; tolerationSeconds: number }[] }).tolerations ?? [];
    expect(tolerations.map((t) => t.key)).toContain('node.kubernetes.io/not-ready');
  });

  it('Priority admission resolves PriorityClasses created through the API', async () => {
    const pc = await api(`${U}/apis/scheduling.k8s.io/v1/priorityclasses`, 'POST', { metadata: { name: 'high' }, value: 1000 });
    expect(pc.status).toBe(201);
    const deadline = Date.now() + 5_000;
    let priority: unknown;
    for (let i = 0; priority !== 1000 && Date.now() < deadline; i++) {
      const pod = await api(`${U}/api/v1/namespaces/default/pods`, 'POST', { metadata: { name: `prio-${i}` }, spec: { priorityClassName: 'high', containers: [{ name: 'c', image: 'nginx' }] } });
      priority = (pod.body.spec as { priority?: number } | undefined)?.priority;
    }
    expect(priority).toBe(1000);
    const missing = await api(`${U}/api/v1/namespaces/default/pods`, 'POST', { metadata: { name: 'prio-x' }, spec: { priorityClassName: 'nope', containers: [{ name: 'c', image: 'nginx' }] } });
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.status).toBeLessThan(500);
  });

  it('405 for verbs a resource lacks, 404 for unknown paths', async () => {
    expect((await api(`${U}/api/v1/componentstatuses/etcd-0`, 'DELETE')).status).toBe(405);
    expect((await api(`${U}/api/v1/namespaces`, 'DELETE')).status).toBe(405);
    const unknown = await api(`${U}/api/v1/widgets`, 'GET');
    expect(unknown.status).toBe(404);
    expect(unknown.body.kind).toBe('Status');
  });

  it('componentstatuses with the deprecation warning', async () => {
    const r = await fetch(`${U}/api/v1/componentstatuses`);
    expect(r.headers.get('warning')).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    const body = (await r.json()) as { items: { metadata: { name: string }; conditions: { status: string }[] }[] };
    const byName = Object.fromEntries(body.items.map((i) => [i.metadata.name, i.conditions[0]?.status]));
    expect(byName).toEqual({ scheduler: 'False', 'controller-manager': 'False', 'etcd-0': 'True' });
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    await api(`${U}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`, 'POST', { metadata: { name: 'kube-scheduler' }, spec: { holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: now } });
    const again = (await api(`${U}/api/v1/componentstatuses/scheduler`, 'GET')).body as unknown as { conditions: { status: string }[] };
    expect(again.conditions[0]?.status).toBe('True');
  });

  it('renews its identity Lease', async () => {
    // Named as Kubernetes names it: apiserver-<base32 of a hash of the host name>; the host in a label.
    const mine = await api(`${U}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=kubernetes.io%2Fhostname%3Dapiserver-0`, 'GET');
    const name = mine.body.items?.[0]?.metadata.name ?? '';
    expect(mine.body.items).toHaveLength(1);
    expect(name).toMatch(/^apiserver-[a-z2-7]{26}$/);
    const path = `${U}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`;
    const first = (await api(path, 'GET')).body;
    expect(first.metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'apiserver-0' });
    const spec = first.spec as { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
    expect(spec.holderIdentity).toMatch(new RegExp(`^${name}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`));
    expect(spec.leaseDurationSeconds).toBe(3600);
    const deadline = Date.now() + 10_000;
    let renewed = spec.renewTime;
    while (renewed === spec.renewTime && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      renewed = ((await api(path, 'GET')).body.spec as { renewTime: string }).renewTime;
    }
    expect(renewed).not.toBe(spec.renewTime);
  });

  it('health endpoints and metrics', async () => {
    const v = await api(`${U}/readyz?verbose`, 'GET');
    expect(v.text).toContain('[+]ping ok');
    expect(v.text).toContain('[+]etcd ok');
    expect(v.text).toContain('readyz check passed');
    expect((await api(`${U}/livez`, 'GET')).text).toBe('ok');
    const m = await api(`${U}/metrics`, 'GET');
    expect(m.text).toMatch(/apiserver_request_total\{verb="LIST",resource="pods",code="200"\} \d+/);
    expect(m.text).toContain('apiserver_request_duration_seconds_bucket');
  });
});

describe('inflight limits', () => {
  it('answers 429 with Retry-After when --max-requests-inflight is used up', async () => {
    const r = await startReplica(cluster.db, 'apiserver-limited', ['--max-requests-inflight=1']);
    try {
      // A list waiting for a future resourceVersion holds the only read-only slot for ~3 s.
      const held = api(`${r.url}/api/v1/pods?resourceVersion=999999999`, 'GET');
      let got: { status: number; headers?: string | null; body?: unknown } = { status: 0 };
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        const res = await fetch(`${r.url}/version`);
        if (res.status === 429) {
          got = { status: 429, headers: res.headers.get('retry-after'), body: await res.json() };
          break;
        }
        await res.text();
      }
      expect(got.status).toBe(429);
      expect(got.headers).toBe('1');
      expect(got.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
      expect((await held).status).toBe(504);
    } finally {
      await r.proc.kill('SIGKILL');
    }
  });
});

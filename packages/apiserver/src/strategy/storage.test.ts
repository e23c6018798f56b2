// The storage kinds through the REST API (fastify.inject): defaults, Pending status on create, Kubernetes'
// validation messages, immutable fields and the Table columns kubectl 1.32 prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

const PV = '/api/v1/persistentvolumes';
const PVC = '/api/v1/namespaces/default/persistentvolumeclaims';
const SC = '/apis/storage.k8s.io/v1/storageclasses';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
let srv: ApiServer;

beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

type Body = KubeObject & { message?: string; spec?: Record<string, unknown>; status?: Record<string, unknown> } & Record<string, unknown>;
async function call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, accept?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(accept ? { accept } : {}) };
  const r = await srv.app.inject({ method, url, headers, ...(body ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as Body };
}

const pv = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec },
});
const pvc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

describe('PersistentVolume', () => {
  it('defaults volumeMode, Retain and the hostPath type, and starts Pending', async () => {
    const r = await call('POST', PV, { ...pv('pv1'), status: { phase: 'Bound' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec).toMatchObject({ volumeMode: 'Filesystem', persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: '/data', type: '' } });
    expect(r.body.status?.phase).toBe('Pending');
    expect(typeof r.body.status?.lastPhaseTransitionTime).toBe('string');
  });

  it("refuses a volume without modes, capacity or source with Kubernetes' messages", async () => {
    const r = await call('POST', PV, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'bad' }, spec: {} });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'PersistentVolume "bad" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, spec: Required value: must specify a volume type]',
    );
  });

  it('keeps its source immutable', async () => {
    const cur = (await call('GET', `${PV}/pv1`)).body;
    const r = await call('PUT', `${PV}/pv1`, { ...cur, spec: { ...cur.spec, hostPath: { path: '/other', type: '' } } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      [
        'PersistentVolume "pv1" is invalid: spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation',
        '  core.PersistentVolumeSource{',
        '  \tGCEPersistentDisk:    nil,',
        '  \tAWSElasticBlockStore: nil,',
        '- \tHostPath:             &core.HostPathVolumeSource{Path: "/data", Type: ""},',
        '+ \tHostPath:             &core.HostPathVolumeSource{Path: "/other", Type: ""},',
        '  \tGlusterfs:            nil,',
        '  \tNFS:                  nil,',
        '  \t... // 17 identical fields',
        '  }',
      ].join('\n'),
    );
  });

  it('prints the columns of kubectl get pv', async () => {
    const t = (await call('GET', PV, undefined, TABLE)).body as unknown as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual([
      'Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode',
    ]);
    expect(t.rows[0]!.cells.slice(0, 9)).toEqual(['pv1', '1Gi', 'RWO', 'Retain', 'Pending', '', '', '<unset>', '']);
  });
});

describe('PersistentVolumeClaim', () => {
  it('starts Pending with volumeMode Filesystem', async () => {
    const r = await call('POST', PVC, pvc('data'));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec?.volumeMode).toBe('Filesystem');
    expect(r.body.status).toEqual({ phase: 'Pending' });
  });

  it('requires access modes and a storage request', async () => {
    const r = await call('POST', PVC, { ...pvc('bad'), spec: { resources: {} } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
    );
  });

  it('lets volumeName be set once but keeps the rest of an unbound spec', async () => {
    const cur = (await call('GET', `${PVC}/data`)).body;
    const named = await call('PUT', `${PVC}/data`, { ...cur, spec: { ...cur.spec, volumeName: 'pv1' } });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    const grown = await call('PUT', `${PVC}/data`, { ...named.body, spec: { ...named.body.spec, resources: { requests: { storage: '2Gi' } } } });
    expect(grown.status).toBe(422);
    expect(grown.body.message).toContain('spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n  core.PersistentVolumeClaimSpec{\n');
    expect(grown.body.message).toMatch(/\n- \tResources: +core\.VolumeResourceRequirements\{Requests: \{"storage": "1Gi"\}\},\n\+ \tResources: +core\.VolumeResourceRequirements\{Requests: \{"storage": "2Gi"\}\},\n/);
  });

  it('prints the columns of kubectl get pvc', async () => {
    const t = (await call('GET', PVC, undefined, TABLE)).body as unknown as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    expect(t.rows[0]!.cells.slice(0, 7)).toEqual(['data', 'Pending', 'pv1', '', '', '', '<unset>']);
  });
});

describe('StorageClass', () => {
  it('defaults reclaimPolicy Delete and volumeBindingMode Immediate, and marks the default class', async () => {
    const r = await call('POST', SC, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'rancher.io/local-path',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const t = (await call('GET', SC, undefined, TABLE)).body as unknown as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    expect(t.rows[0]!.cells.slice(0, 5)).toEqual(['fast (default)', 'rancher.io/local-path', 'Delete', 'Immediate', false]);
  });

  it('refuses a class without provisioner and changes of its parameters', async () => {
    const bad = await call('POST', SC, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'bad' }, volumeBindingMode: 'Later' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'StorageClass.storage.k8s.io "bad" is invalid: [provisioner: Required value, volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"]',
    );
    const cur = (await call('GET', `${SC}/fast`)).body;
    const r = await call('PUT', `${SC}/fast`, { ...cur, parameters: { a: 'b' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('parameters: Forbidden: updates to parameters are forbidden.');
  });
});

describe('CSIDriver, CSINode, VolumeAttachment', () => {
  it('stores them with their defaults and validation', async () => {
    const d = await call('POST', '/apis/storage.k8s.io/v1/csidrivers', { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'hostpath.csi.k8s.io' }, spec: {} });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    expect(d.body.spec).toMatchObject({ attachRequired: true, podInfoOnMount: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'] });
    const n = await call('POST', '/apis/storage.k8s.io/v1/csinodes', { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'hostpath.csi.k8s.io', nodeID: '' }] } });
    expect(n.status).toBe(422);
    expect(n.body.message).toContain('spec.drivers[0].nodeID: Required value: nodeID cannot be empty');
    const va = await call('POST', '/apis/storage.k8s.io/v1/volumeattachments', { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'hostpath.csi.k8s.io', source: {}, nodeName: 'node-1' } });
    expect(va.status).toBe(422);
    expect(va.body.message).toContain('spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName');
  });
});

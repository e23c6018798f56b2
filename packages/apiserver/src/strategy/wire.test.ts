// The per-kind semantics seen through the real REST surface (fastify.inject on a MemoryBackend): defaults,
// generation, 422 messages, strategic merge patch, Tables and selectors as kubectl observes them.
import { MemoryBackend } from '@kemu/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;

beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const inject = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  srv.app.inject({
    method: method as 'GET',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

describe('through the REST API', () => {
  it('kubectl create deployment gets server defaults and generation 1', async () => {
    const body = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'x', creationTimestamp: null, labels: { app: 'x' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { creationTimestamp: null, labels: { app: 'x' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
        strategy: {},
      },
      status: {},
    };
    const r = await inject('POST', `${DEPLOY}?fieldManager=kubectl-create`, body);
    expect(r.statusCode).toBe(201);
    const d = r.json();
    expect(d.metadata.generation).toBe(1);
    expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    expect(d.spec.revisionHistoryLimit).toBe(10);
    expect(d.spec.progressDeadlineSeconds).toBe(600);
    expect(d.spec.template.spec.containers[0].imagePullPolicy).toBe('Always');
  });

  it('a strategic merge patch bumps generation and merges containers by name', async () => {
    const r = await inject('PATCH', `${DEPLOY}/x`, { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } }, {
      'content-type': 'application/strategic-merge-patch+json',
    });
    expect(r.statusCode).toBe(200);
    const d = r.json();
    expect(d.metadata.generation).toBe(2);
    expect(d.spec.template.spec.containers).toHaveLength(1);
    expect(d.spec.template.spec.containers[0]).toMatchObject({ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'Always' });
  });

  it('invalid objects are 422 with Kubernetes causes', async () => {
    const r = await inject('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'invalid422' }, spec: { containers: [{ name: 'c' }] } });
    expect(r.statusCode).toBe(422);
    const s = r.json();
    expect(s.reason).toBe('Invalid');
    expect(s.message).toBe('Pod "invalid422" is invalid: spec.containers[0].image: Required value');
    expect(s.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' }]);
  });

  it('pods get defaults, admission and a Pending status; Tables print kubectl columns', async () => {
    const r = await inject('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] }, status: { phase: 'Running' } });
    expect(r.statusCode).toBe(201);
    const p = r.json();
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(p.spec).toMatchObject({ restartPolicy: 'Always', serviceAccountName: 'default', priority: 0, schedulerName: 'default-scheduler' });
    expect(p.spec.tolerations).toHaveLength(2);
    const t = await inject('GET', '/api/v1/namespaces/default/pods', undefined, { accept: TABLE });
    const table = t.json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['web-1', '0/1', 'Pending', '0']);
  });

  it('pod spec updates other than image are forbidden', async () => {
    const r = await inject('PATCH', '/api/v1/namespaces/default/pods/web-1', { spec: { restartPolicy: 'Never' } }, { 'content-type': 'application/merge-patch+json' });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toMatch(/^Pod "web-1" is invalid: spec: Forbidden: pod updates may not change fields other than/);
  });

  it('label and field selectors filter lists; unsupported fields are 400', async () => {
    const byLabel = await inject('GET', '/api/v1/namespaces/default/pods?labelSelector=app%20in%20(web,db)');
    expect(byLabel.json().items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['web-1']);
    const none = await inject('GET', '/api/v1/namespaces/default/pods?labelSelector=app!%3Dweb');
    expect(none.json().items).toEqual([]);
    const byField = await inject('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3D,status.phase!%3DSucceeded');
    expect(byField.json().items).toHaveLength(1);
    const bad = await inject('GET', '/api/v1/pods?fieldSelector=spec.bogus%3Dx');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('field label not supported: spec.bogus');
    const badLabel = await inject('GET', '/api/v1/pods?labelSelector=a%3D%3D%3D');
    expect(badLabel.statusCode).toBe(400);
  });

  it('a built-in priority class resolves to its value', async () => {
    const r = await inject('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'prio' }, spec: { priorityClassName: 'system-cluster-critical', containers: [{ name: 'c', image: 'x' }] } });
    expect(r.statusCode).toBe(201);
    expect(r.json().spec).toMatchObject({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('namespace: Active with the kubernetes finalizer, kept on PUT, emptied by /finalize', async () => {
    const c = await inject('POST', '/api/v1/namespaces', { metadata: { name: 'team-a' } });
    expect(c.statusCode).toBe(201);
    expect(c.json()).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' }, metadata: { labels: { 'kubernetes.io/metadata.name': 'team-a' } } });
    const put = await inject('PUT', '/api/v1/namespaces/team-a', { metadata: { name: 'team-a', labels: { x: 'y' } } });
    expect(put.statusCode).toBe(200);
    expect(put.json().spec).toEqual({ finalizers: ['kubernetes'] });
    expect(put.json().status).toEqual({ phase: 'Active' });
    const del = await inject('DELETE', '/api/v1/namespaces/team-a');
    expect(del.statusCode).toBe(200);
    const got = await inject('GET', '/api/v1/namespaces/team-a');
    expect(got.json().status.phase).toBe('Terminating');
    const fin = await inject('PUT', '/api/v1/namespaces/team-a/finalize', { metadata: { name: 'team-a' }, spec: { finalizers: [] } });
    expect(fin.statusCode).toBe(200);
    expect((await inject('GET', '/api/v1/namespaces/team-a')).statusCode).toBe(404);
  });
});

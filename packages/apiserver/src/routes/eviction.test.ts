// pods/eviction with PodDisruptionBudgets over HTTP (fastify inject): 429 with Kubernetes' message and
// DisruptionBudget cause, disruptedPods recorded, dry run, pending pods, unhealthyPodEvictionPolicy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

const NS = '/api/v1/namespaces/default';
const PDB = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(method: string, url: string, body?: unknown) {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as Json };
}

async function runningPod(name: string, app: string, ready: boolean) {
  expect((await call('POST', `${NS}/pods`, { metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).status).toBe(201);
  const cur = (await call('GET', `${NS}/pods/${name}`)).body;
  cur.status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
  expect((await call('PUT', `${NS}/pods/${name}/status`, cur)).status).toBe(200);
}

async function budget(name: string, app: string, status: Json, extra: Json = {}) {
  const created = await call('POST', PDB, { metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...extra } });
  expect(created.status).toBe(201);
  const cur = created.body;
  cur.status = { observedGeneration: cur.metadata.generation, ...status };
  const r = await call('PUT', `${PDB}/${name}/status`, cur);
  expect(r.status).toBe(200);
}

const evict = (name: string, query = '') => call('POST', `${NS}/pods/${name}/eviction${query}`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });

describe('pods/eviction', () => {
  it('refuses with 429 when the budget allows no disruption', async () => {
    await runningPod('a1', 'a', true);
    await budget('pa', 'a', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const r = await evict('a1');
    expect(r.status).toBe(429);
    expect(r.body.reason).toBe('TooManyRequests');
    expect(r.body.message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(r.body.details.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget pa needs 1 healthy pods and has 1 currently' }]);
    expect((await call('GET', `${NS}/pods/a1`)).status).toBe(200);
  });

  it('spends a disruption, records the pod in disruptedPods and marks it DisruptionTarget', async () => {
    await runningPod('b1', 'b', true);
    await budget('pb', 'b', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const dry = await evict('b1', '?dryRun=All');
    expect(dry.status).toBe(201);
    expect((await call('GET', `${PDB}/pb`)).body.status.disruptionsAllowed).toBe(1);
    expect((await call('GET', `${NS}/pods/b1`)).status).toBe(200);
    const r = await evict('b1');
    expect(r.status).toBe(201);
    const pdb = (await call('GET', `${PDB}/pb`)).body;
    expect(pdb.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(pdb.status.disruptedPods)).toEqual(['b1']);
    expect(pdb.status.conditions).toMatchObject([{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }]);
    expect((await call('GET', `${NS}/pods/b1`)).status).toBe(404);
  });

  it('waits for the controller to observe a new generation', async () => {
    await runningPod('c1', 'c', true);
    await budget('pc', 'c', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const cur = (await call('GET', `${PDB}/pc`)).body;
    cur.spec.minAvailable = 0;
    expect((await call('PUT', `${PDB}/pc`, cur)).status).toBe(200);
    const r = await evict('c1');
    expect(r.status).toBe(429);
    expect(r.body.details).toMatchObject({ retryAfterSeconds: 10, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pc is still being processed by the server.' }] });
  });

  it('evicts a pod that is not yet running whatever the budget says', async () => {
    expect((await call('POST', `${NS}/pods`, { metadata: { name: 'd1', labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).status).toBe(201);
    await budget('pd', 'd', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 });
    expect((await evict('d1')).status).toBe(201);
  });

  it('lets an unready pod go with AlwaysAllow, and keeps it under IfHealthyBudget while the budget is short', async () => {
    await runningPod('e1', 'e', false);
    await budget('pe', 'e', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 });
    expect((await evict('e1')).status).toBe(429);
    await runningPod('f1', 'f', false);
    await budget('pf', 'f', { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    expect((await evict('f1')).status).toBe(201);
    expect((await call('GET', `${PDB}/pf`)).body.status.disruptedPods).toBeUndefined();
  });

  it('refuses a pod with two budgets', async () => {
    await runningPod('g1', 'g', true);
    await budget('pg1', 'g', { disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1 });
    await budget('pg2', 'g', { disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 0, expectedPods: 1 });
    const r = await evict('g1');
    expect(r.status).toBe(500);
    expect(r.body.message).toBe('Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  });
});

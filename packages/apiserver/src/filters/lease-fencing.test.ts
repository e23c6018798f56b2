// X-Kemu-Lease through the whole server (fastify inject): writes from the Lease's current term pass, writes
// from a former term are 409 with a Status naming the Lease and its holder, everything else is untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import type { ApiServer } from '../server.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv.close());

interface Reply {
  status: number;
  body: { kind?: string; reason?: string; message?: string; code?: number; details?: unknown; spec?: { nodeName?: string; holderIdentity?: string; leaseTransitions?: number } };
}

const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, ct = 'application/json'): Promise<Reply> => {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': ct, ...headers }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  return { status: r.statusCode, body: r.json() as Reply['body'] };
};

const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler';
const fence = (holder: string, transitions: number) => ({ 'X-Kemu-Lease': `kube-system/kube-scheduler;holder=${holder};transitions=${transitions}` });
const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const binding = (name: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } });

async function setHolder(holder: string, transitions: number): Promise<void> {
  const cur = await send('GET', LEASE);
  const spec = { holderIdentity: holder, leaseDurationSeconds: 15, leaseTransitions: transitions };
  const r = cur.status === 404 ? await send('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { metadata: { name: 'kube-scheduler' }, spec }) : await send('PATCH', LEASE, { spec }, {}, 'application/merge-patch+json');
  expect(r.status).toBeLessThan(300);
}

describe('Lease fencing (X-Kemu-Lease)', () => {
  it('lets the current holder write, also across its renewals', async () => {
    await setHolder('sched-0_a', 0);
    expect((await send('POST', '/api/v1/namespaces/default/pods', pod('f1'), fence('sched-0_a', 0))).status).toBe(201);
    await send('PATCH', LEASE, { spec: { renewTime: '2026-01-01T00:00:00.000000Z' } }, {}, 'application/merge-patch+json');
    const b = await send('POST', '/api/v1/namespaces/default/pods/f1/binding', binding('f1'), fence('sched-0_a', 0));
    expect(b.status).toBe(201);
  });

  it('refuses a former holder with 409 Conflict naming the Lease, its holder and the sender; the write does not happen', async () => {
    await setHolder('sched-0_a', 0);
    expect((await send('POST', '/api/v1/namespaces/default/pods', pod('f2'))).status).toBe(201);
    await setHolder('sched-1_b', 1);
    const b = await send('POST', '/api/v1/namespaces/default/pods/f2/binding', binding('f2'), fence('sched-0_a', 0));
    expect(b.status).toBe(409);
    expect(b.body).toMatchObject({
      kind: 'Status',
      reason: 'Conflict',
      code: 409,
      details: { name: 'kube-scheduler', group: 'coordination.k8s.io', kind: 'leases' },
      message:
        'Operation cannot be fulfilled on leases.coordination.k8s.io "kube-scheduler": this write was sent by "sched-0_a" as holder at leaseTransitions 0, ' +
        'but the lease kube-system/kube-scheduler is now held by "sched-1_b" (leaseTransitions 1): a write from a former leader is refused',
    });
    expect((await send('GET', '/api/v1/namespaces/default/pods/f2')).body.spec?.nodeName).toBeUndefined();
    // The new holder writes.
    expect((await send('POST', '/api/v1/namespaces/default/pods/f2/binding', binding('f2'), fence('sched-1_b', 1))).status).toBe(201);
  });

  it('refuses the same identity in an older term (it lost the Lease and took it back), a released Lease and a missing one', async () => {
    await setHolder('sched-0_a', 3);
    const older = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c1' } }, fence('sched-0_a', 2));
    expect(older.status).toBe(409);
    expect(older.body.message).toContain('is now held by "sched-0_a" (leaseTransitions 3)');
    await setHolder('', 3);
    const released = await send('DELETE', '/api/v1/namespaces/default/pods/f1', undefined, fence('sched-0_a', 3));
    expect(released.status).toBe(409);
    expect(released.body.message).toContain('has been released (no holder, leaseTransitions 3)');
    const missing = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c2' } }, { 'X-Kemu-Lease': 'kube-system/nobody;holder=x_1;transitions=0' });
    expect(missing.status).toBe(409);
    expect(missing.body.message).toBe(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "nobody": this write was sent by "x_1" as holder at leaseTransitions 0, but the lease kube-system/nobody does not exist: a write from a former leader is refused',
    );
  });

  it('leaves reads, requests without the header and writes to the Lease itself alone', async () => {
    await setHolder('sched-1_b', 1);
    const stale = fence('sched-0_a', 0);
    expect((await send('GET', '/api/v1/namespaces/default/pods', undefined, stale)).status).toBe(200);
    expect((await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c3' } })).status).toBe(201);
    expect((await send('PATCH', LEASE, { spec: { holderIdentity: 'sched-0_a', leaseTransitions: 2 } }, stale, 'application/merge-patch+json')).status).toBe(200);
  });

  it.each([
    ['kube-system/kube-scheduler'],
    ['kube-system/kube-scheduler;holder=a;transitions=-1'],
    ['kube-scheduler;holder=a;transitions=1'],
    ['kube-system/kube-scheduler;holder=;transitions=1'],
  ])('a malformed header %j is a 400 naming the format', async (value) => {
    const r = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bad' } }, { 'X-Kemu-Lease': value });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ reason: 'BadRequest', message: `invalid X-Kemu-Lease header ${JSON.stringify(value)}: want "<namespace>/<name>;holder=<identity>;transitions=<n>"` });
  });
});

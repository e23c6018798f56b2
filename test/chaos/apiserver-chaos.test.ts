// Chaos through the balancer: losing apiservers one and two at a time, and all of them at once.
// Writes are ConfigMap creates on fresh connections, as a client reconnecting through HAProxy would send.
// A controller-manager, a scheduler and a kubelet run too: after two apiservers are gone their watches must
// have resumed on the survivor, so a Deployment scaled then still gets its pods Running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, type Lab } from '../lab/lab.ts';
import { call, items, rec, PodWatch } from '../lab/api.ts';
import { deployment, scale } from './workloads.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker');
if (skip) console.warn(`test/chaos/apiserver-chaos.test.ts: ${skip}`);

function cm(name: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { at: new Date().toISOString() } };
}

/** One create, retried on a broken connection (never on an HTTP answer): returns the status it got. */
async function write(lab: Lab, ns: string, name: string): Promise<{ status: number; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await call(lab.server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name), 5_000);
      // 409 on a retry means the first attempt had committed before the connection broke.
      return { status: r.status === 409 && attempt > 1 ? 201 : r.status, attempts: attempt };
    } catch (e) {
      if (attempt >= 3) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Names of the Running, not deleting pods with app=<app>, from a fresh list. */
async function running(lab: Lab, ns: string, app: string): Promise<string[]> {
  const r = await call(lab.server, 'GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`app=${app}`)}`);
  return items(r)
    .filter((p) => rec(p.status).phase === 'Running' && typeof rec(p.metadata).deletionTimestamp !== 'string')
    .map((p) => String(rec(p.metadata).name))
    .sort();
}

/** Watches registered on one apiserver right now (its own /metrics, not through the balancer). */
async function watchers(lab: Lab, name: string): Promise<number> {
  const r = await call(lab.url(name), 'GET', '/metrics');
  let n = 0;
  for (const m of String(r.body).matchAll(/^apiserver_registered_watchers\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

describe.skipIf(skip)('apiserver chaos (processes)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ apiservers: 3, controllerManagers: 1, schedulers: 1, workers: 1, imagePullDelay: '0s' });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('writes keep succeeding through the balancer while one, then two apiservers are stopped; the components\' watches resume on the survivor', async () => {
    const ns = 'default';
    // A Deployment of 2 Running before the stops, and a pod watch through the balancer counting every ADDED.
    const added = new Map<string, number>();
    const pods = new PodWatch(lab.server, ns, 'app=scaled', (_w, ev) => {
      if (ev.type === 'ADDED') added.set(ev.obj.name, (added.get(ev.obj.name) ?? 0) + 1);
    });
    await pods.start();
    const d = await call(lab.server, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment('scaled', 2));
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    await waitFor('2 Running pods of scaled', async () => (await running(lab, ns, 'scaled')).length === 2, 90_000, 300);
    // Stop the two apiservers holding the most watches, so the components' watches must move to the third.
    const held = await Promise.all(['apiserver-0', 'apiserver-1', 'apiserver-2'].map(async (a) => ({ a, n: await watchers(lab, a) })));
    const [first, second] = held.sort((x, y) => y.n - x.n).map((h) => h.a) as [string, string, string];
    const moved = held.filter((h) => h.a === first || h.a === second).reduce((t, h) => t + h.n, 0);
    console.log(`watches per apiserver before the stops: ${held.map((h) => `${h.a}=${h.n}`).join(' ')}`);
    expect(moved).toBeGreaterThan(0);
    let i = 0;
    let stopAt = Date.now() + 60_000;
    const results: { status: number; attempts: number; at: number }[] = [];
    const writer = (async () => {
      while (Date.now() < stopAt) {
        const r = await write(lab, ns, `w-${i++}`);
        results.push({ ...r, at: Date.now() });
      }
    })();
    await waitFor('some writes', () => results.length > 20, 20_000);
    expect((await lab.kemu('stop', first)).code).toBe(0);
    const n1 = results.length;
    await waitFor('writes after one apiserver is gone', () => results.length > n1 + 30, 20_000);
    expect((await lab.kemu('stop', second)).code).toBe(0);
    const n2 = results.length;
    await waitFor('writes after two apiservers are gone', () => results.length > n2 + 30, 20_000);
    stopAt = 0;
    await writer;
    const failed = results.filter((r) => r.status !== 201);
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    let gap = 0;
    for (let k = 1; k < results.length; k++) gap = Math.max(gap, results[k]!.at - results[k - 1]!.at);
    console.log(`${results.length} writes, ${results.filter((r) => r.attempts > 1).length} needed a reconnect, longest gap ${gap} ms`);
    const listed = items(await call(lab.server, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).length;
    expect(listed).toBeGreaterThanOrEqual(results.length);

    // One apiserver is left: the controller-manager (Deployment, ReplicaSet), the scheduler and the kubelet
    // must all see the scale through it.
    const t0 = Date.now();
    await scale(lab, ns, 'scaled', 5);
    const five = await waitFor('5 Running pods of scaled on the surviving apiserver', async () => {
      const r = await running(lab, ns, 'scaled');
      return r.length === 5 ? r : undefined;
    }, 90_000, 300);
    console.log(`scaled 2 → 5 with one apiserver left: 5 Running after ${Date.now() - t0} ms`);
    // The watch opened before the stops saw each pod ADDED once: nothing missed, nothing doubled.
    await waitFor('the watch caught up with the list', () => five.every((n) => pods.pods.get(n)?.phase === 'Running'), 20_000, 100);
    pods.stop();
    const all = items(await call(lab.server, 'GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dscaled`)).map((p) => String(rec(p.metadata).name)).sort();
    expect([...pods.pods.keys()].sort()).toEqual(all);
    for (const n of all) expect(added.get(n), `ADDED events for ${n}`).toBe(1);
    expect([...added.values()].every((c) => c === 1), JSON.stringify([...added])).toBe(true);

    for (const n of [first, second]) expect((await lab.kemu('start', n)).code).toBe(0);
    await lab.waitRunning([first, second], 60_000);
  }, 240_000);

  it('no acknowledged write is lost when every apiserver is killed and restarted', async () => {
    const ns = 'default';
    const acked: string[] = [];
    // Failed writes by what the client saw: refused at connect (nothing sent), or sent and then cut (in flight).
    const refused: string[] = [];
    const inFlight: string[] = [];
    let stop = false;
    let n = 0;
    const writer = (async () => {
      while (!stop) {
        const name = `k-${n++}`;
        try {
          const r = await call(lab.server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name), 3_000);
          if (r.status === 201) acked.push(name);
        } catch (e) {
          const err = e as NodeJS.ErrnoException;
          (err.syscall === 'connect' ? refused : inFlight).push(`${err.syscall ?? ''} ${err.code ?? err.message}`);
          await new Promise((r) => setTimeout(r, 50)); // no apiserver: nothing acknowledged
        }
      }
    })();
    await waitFor('acked writes', () => acked.length > 30, 20_000);
    await Promise.all(['apiserver-0', 'apiserver-1', 'apiserver-2'].map((a) => lab.kemu('kill', a)));
    const ackedAtKill = acked.length;
    for (const a of ['apiserver-0', 'apiserver-1', 'apiserver-2']) expect((await lab.kemu('start', a)).code).toBe(0);
    await lab.waitRunning(['apiserver-0', 'apiserver-1', 'apiserver-2'], 60_000);
    await waitFor('writes after the restart', () => acked.length > ackedAtKill + 20, 30_000);
    stop = true;
    await writer;
    const r = await call(lab.server, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(r.status).toBe(200);
    const present = new Set(items(r).map((o) => String((o.metadata as Record<string, unknown>).name)));
    const lost = acked.filter((a) => !present.has(a));
    expect(lost).toEqual([]);
    console.log(`${acked.length} acknowledged writes across a full apiserver outage, none lost; failed: ${refused.length} refused at connect, ${inFlight.length} in flight (${[...new Set(inFlight)].join(', ')})`);
    // With every apiserver down the balancer refuses connections; only the writes caught by the kills are cut.
    expect(refused.length).toBeGreaterThan(0);
    expect(inFlight.length, inFlight.join('; ')).toBeLessThanOrEqual(5);
  }, 120_000);
});

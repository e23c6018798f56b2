// Lab benchmarks, printed as figures (not part of npm test):
//  1. `kemu up` → all nodes Ready, in seconds (and `docker-compose up` when KEMU_BENCH_DOCKER=1 and Docker runs);
//  2. controller-manager failover through the balancer: `kemu stop <leader>` → the first reconcile by the new
//     leader (a Deployment scaled while it is down gets its pods);
//  3. the longest gap in successful writes through the balancer when an apiserver is lost (stop and kill).
// Run: node --import tsx bench/lab-bench.ts
import { waitFor } from '@kemu/base/testing/processes';
import { leaseHolder } from '@kemu/kemu';
import { startLab, missing, type Lab } from '../test/lab/lab.ts';
import { call, PodWatch } from '../test/lab/api.ts';

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

async function upToReady(o: Parameters<typeof startLab>[0], nodes: number): Promise<{ lab: Lab; ms: number }> {
  const t0 = Date.now();
  const lab = await startLab(o);
  if (nodes > 0)
    await waitFor(`${nodes} Ready nodes`, async () => {
      const r = await call(lab.server, 'GET', '/api/v1/nodes');
      const list = (r.body as { items?: { status?: { conditions?: { type: string; status: string }[] } }[] }).items ?? [];
      return list.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length === nodes;
    }, 180_000, 100);
  else await lab.waitRunning(undefined, 180_000);
  return { lab, ms: Date.now() - t0 };
}

async function writeGap(lab: Lab, victim: string, how: 'stop' | 'kill'): Promise<{ gap: number; failed: number; writes: number }> {
  let stop = false;
  let last = Date.now();
  let gap = 0;
  let failed = 0;
  let writes = 0;
  let i = 0;
  const writer = (async () => {
    while (!stop) {
      try {
        const r = await call(lab.server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `gap-${how}-${i++}` } }, 3000);
        if (r.status === 201) {
          const now = Date.now();
          gap = Math.max(gap, now - last);
          last = now;
          writes++;
        } else failed++;
      } catch {
        failed++;
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 2000));
  await lab.kemu(how, victim);
  await new Promise((r) => setTimeout(r, 5000));
  stop = true;
  await writer;
  await lab.kemu('start', victim);
  await lab.waitRunning([victim], 60_000);
  return { gap, failed, writes };
}

async function main(): Promise<void> {
  const skipApi = missing('apiserver');
  if (skipApi) {
    console.log(`lab-bench: ${skipApi}`);
    return;
  }
  const full = !missing('apiserver', 'controller-manager', 'scheduler', 'worker');
  const { lab, ms } = await upToReady(full ? { apiservers: 3, controllerManagers: 3, schedulers: 3, workers: 3 } : { apiservers: 3, controllerManagers: 0, schedulers: 0, workers: 0 }, full ? 3 : 0);
  try {
    console.log(`kemu up → ${full ? '3 nodes Ready' : 'apiservers ready (other components not implemented)'}: ${secs(ms)}`);
    for (const how of ['stop', 'kill'] as const) {
      const g = await writeGap(lab, 'apiserver-1', how);
      console.log(`apiserver lost (${how}): longest gap between successful writes ${g.gap} ms, ${g.failed} failed of ${g.writes + g.failed}`);
    }
    if (full) {
      const w = new PodWatch(lab.server, 'default', 'app=bench-failover', () => undefined);
      await w.start();
      await call(lab.server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'bench-failover' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'bench-failover' } }, template: { metadata: { labels: { app: 'bench-failover' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      await waitFor('1 pod', () => w.live().length === 1, 60_000);
      const first = await waitFor('leader', async () => (await leaseHolder(lab.server, 'kube-controller-manager')).component, 30_000);
      // 3 s leases (test defaults): the pod count change is the first visible reconcile of the new leader.
      const t0 = Date.now();
      await lab.kemu('stop', first);
      const res = await call(lab.server, 'GET', '/apis/apps/v1/namespaces/default/deployments/bench-failover');
      const obj = res.body as { spec: { replicas: number } };
      obj.spec.replicas = 2;
      await call(lab.server, 'PUT', '/apis/apps/v1/namespaces/default/deployments/bench-failover', obj);
      const next = await waitFor('new leader', async () => {
        const c = (await leaseHolder(lab.server, 'kube-controller-manager')).component;
        return c && c !== first ? c : undefined;
      }, 30_000, 50);
      const tLease = Date.now() - t0;
      await waitFor('2 pods', () => w.live().length === 2, 60_000, 20);
      console.log(`controller-manager failover ${first} → ${next}: lease moved after ${tLease} ms, first reconcile after ${Date.now() - t0} ms (lease 3s, retry 500ms)`);
      w.stop();
    }
  } finally {
    await lab.down();
  }
}

await main();

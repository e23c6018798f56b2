// A reflector whose apiserver replica dies resumes on another replica (through a TCP balancer) without
// missing or repeating an event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type KubeObject } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { RestClient, SharedInformerFactory } from '@kemu/client';
import { startCluster, type Cluster, type Replica } from '../apiserver/cluster.ts';
import { TcpBalancer } from './balancer.ts';

let cluster: Cluster;
let lb: TcpBalancer;

beforeAll(async () => {
  cluster = await startCluster(3);
  lb = await new TcpBalancer(cluster.replicas.map((r) => r.port)).start();
}, 60_000);

afterAll(async () => {
  await lb?.stop();
  await cluster?.stop();
});

describe('reflector across apiserver replicas', () => {
  it('resumes on another replica after SIGKILL without missing or repeating events', async () => {
    let writer = new RestClient({ server: (cluster.replicas[0] as Replica).url, qps: -1 });
    const client = new RestClient({ server: lb.url, qps: -1 });
    const ns = 'failover';
    await writer.create(R.namespaces, undefined, { metadata: { name: ns } });
    const cm = (name: string): KubeObject => ({ metadata: { name, namespace: ns }, data: { v: name } });
    for (let i = 0; i < 5; i++) await writer.create(R.configmaps, ns, cm(`before-${i}`));

    const ctrl = new AbortController();
    const factory = new SharedInformerFactory(client, { watchIdleTimeoutMs: 5_000, backoffInitialMs: 100 });
    const inf = factory.informerFor<KubeObject>(R.configmaps, { namespace: ns });
    const adds: string[] = [];
    inf.addEventHandler({ onAdd: (o) => adds.push(o.metadata.name ?? '') });
    factory.start(ctrl.signal);
    try {
      expect(await factory.waitForCacheSync(ctrl.signal)).toBe(true);
      // Writes before, during and after the kill.
      for (let i = 0; i < 5; i++) await writer.create(R.configmaps, ns, cm(`live-${i}`));
      await waitFor('live events', () => inf.store.get(`${ns}/live-4`));
      // Kill every replica the informer has a connection to (its watch, and maybe an idle keep-alive one).
      const victimPorts = lb.activeBackends();
      const victims = cluster.replicas.filter((r) => victimPorts.includes(r.port));
      const survivor = cluster.replicas.find((r) => !victimPorts.includes(r.port));
      expect(victims.length).toBeGreaterThanOrEqual(1);
      expect(survivor).toBeDefined();
      await writer.close();
      writer = new RestClient({ server: (survivor as Replica).url, qps: -1 });
      const killed = Promise.all(victims.map((v) => v.proc.kill('SIGKILL')));
      for (let i = 0; i < 10; i++) await writer.create(R.configmaps, ns, cm(`during-${i}`));
      await killed;
      for (let i = 0; i < 5; i++) await writer.create(R.configmaps, ns, cm(`after-${i}`));

      await waitFor('all 25', () => inf.store.keys().length === 25, 30_000);
      const want = ['before', 'live', 'during', 'after'].flatMap((p) => Array.from({ length: p === 'during' ? 10 : 5 }, (_, i) => `${p}-${i}`));
      expect([...adds].sort()).toEqual(want.sort()); // each exactly once
      expect(inf.stats.watches).toBeGreaterThanOrEqual(2); // the watch broke and was re-opened...
      expect(inf.stats.lists).toBe(1); // ...from the last resourceVersion, without a re-list
      expect(lb.activeBackends()).toEqual([(survivor as Replica).port]);
    } finally {
      ctrl.abort();
      await client.close();
      await writer.close();
    }
  }, 90_000);
});

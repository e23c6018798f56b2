// The compose lab end to end: `docker-compose up -d --build`, 3 Ready nodes through HAProxy with kubectl, the
// leader Leases, tear down. Runs when Docker is usable here and the base images are built (see docker.ts for
// the gate; KEMU_DOCKER_TESTS=1 forces it, building everything first, =0 skips it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { leaseHolder } from '@kemu/kemu';
import { missing, hasKubectl } from './lab.ts';
import { planDocker, startEngine, startComposeLab, waitNodesReady, type ComposeLab } from './compose-lab.ts';

const plan = planDocker('test/lab/docker-lab.test.ts', missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'kubectl is not installed'));

describe.skipIf(plan.skip)('docker-compose lab', () => {
  let lab: ComposeLab | undefined;
  const t0 = Date.now();

  beforeAll(async () => {
    if (!(await startEngine(plan))) return;
    lab = await startComposeLab(plan, { KEMU_LEASE_DURATION: '4s', KEMU_RENEW_DEADLINE: '3s', KEMU_RETRY_PERIOD: '1s' });
  }, 1_200_000);

  afterAll(async () => {
    await lab?.down();
    await plan.engine?.stop();
  }, 180_000);

  it('reaches 3 Ready nodes through HAProxy and elects one leader of each kind', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    const tUp = Date.now();
    await waitNodesReady(l);
    console.log(`compose lab: up -d --build ${l.upSeconds.toFixed(1)}s, 3 nodes Ready ${((Date.now() - tUp) / 1000).toFixed(1)}s after it returned, ${((Date.now() - t0) / 1000).toFixed(1)}s since the engine answered`);
    const cm = await waitFor('controller-manager leader', async () => (await leaseHolder(l.server, 'kube-controller-manager')).component, 60_000, 500);
    const sched = await waitFor('scheduler leader', async () => (await leaseHolder(l.server, 'kube-scheduler')).component, 60_000, 500);
    expect(cm).toMatch(/^controller-manager-[0-2]$/);
    expect(sched).toMatch(/^scheduler-[0-2]$/);
    const leases = await l.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', 'kube-scheduler', '--no-headers');
    expect(leases.stdout).toContain(`${cm}_`);
    // As in the seed walkthrough: the raw Lease list through the published port also holds the three
    // apiserver identity Leases.
    const res = await fetch(`${l.server}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`);
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['kube-controller-manager', 'kube-scheduler', 'apiserver-0', 'apiserver-1', 'apiserver-2']));
    // Each replica advertises its own container address (no --advertise-address in the compose file), so the
    // `kubernetes` Service's Endpoints hold three distinct non-loopback IPs on 6443.
    const ips = await waitFor('three apiserver addresses in default/kubernetes', async () => {
      const r = await fetch(`${l.server}/api/v1/namespaces/default/endpoints/kubernetes`);
      const ep = (await r.json()) as { subsets?: { addresses?: { ip: string }[]; ports?: { port: number }[] }[] };
      const got = (ep.subsets ?? []).flatMap((s) => (s.ports ?? []).some((p) => p.port === 6443) ? (s.addresses ?? []).map((a) => a.ip) : []);
      return new Set(got).size === 3 ? got : undefined;
    }, 60_000, 500);
    for (const ip of ips) expect(ip).not.toMatch(/^127\./);
  }, 420_000);
});

// Both seeds' kube-controller-manager units and seed 000's kube-scheduler unit, verbatim (the cluster-signing flags
// included), start against a kube-apiserver with seed 003's access flags, answer /healthz and take their Lease. Seed 003's
// dual-stack unit then shows its identity controllers at work: kube-root-ca.crt in a new namespace, a
// service-account-token Secret filled with a token the apiserver accepts, cluster-info signed for a bootstrap token,
// an expired bootstrap token deleted, and a Node given one IPv4 and one IPv6 podCIDR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type ConfigMap, type Namespace, type Node, type Secret, type ServiceAccount } from '@kemu/api';
import { RestClient } from '@kemu/client';
import { waitFor } from '@kemu/base/testing/processes';
import { SEED_000_KCM, SEED_000_SCHEDULER, SEED_003_KCM, SEED_003_KCM_SHORT, startSeedCluster, waitHealthy, waitLeaseHolder, type SeedCluster } from './seed-units.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
let c: SeedCluster;

beforeAll(async () => {
  c = await startSeedCluster('kemu-seed-units-');
}, 60_000);
afterAll(async () => c?.stop());

describe("the seeds' controller-manager and scheduler units", () => {
  it("seed 000's kube-scheduler unit (--config with clientConnection.kubeconfig and leaderElection) serves /healthz and leads", async () => {
    const { proc, port } = await c.start('scheduler-000', 'scheduler', SEED_000_SCHEDULER);
    await waitHealthy(proc, port);
    expect(await waitLeaseHolder(c.client, 'kube-scheduler', proc)).toMatch(/_/);
    await proc.kill('SIGTERM');
  }, 60_000);

  for (const [seed, unit] of [
    ['000', SEED_000_KCM],
    ['003 (short)', SEED_003_KCM_SHORT],
  ] as const) {
    it(`seed ${seed}'s kube-controller-manager unit serves /healthz and takes the Lease`, async () => {
      const { proc, port } = await c.start(`kcm-${seed}`, 'controllerManager', unit);
      await waitHealthy(proc, port);
      expect(await waitLeaseHolder(c.client, 'kube-controller-manager', proc)).toMatch(/_/);
      // Leave the Lease to the next unit (kube-controller-manager keeps it until it expires).
      await proc.kill('SIGTERM');
      await c.client.delete(R.leases, 'kube-system', 'kube-controller-manager');
    }, 60_000);
  }

  it("seed 003's dual-stack unit runs the identity controllers and node IPAM", async () => {
    const { proc, port } = await c.start('kcm-003', 'controllerManager', SEED_003_KCM);
    await waitHealthy(proc, port);
    await waitLeaseHolder(c.client, 'kube-controller-manager', proc);
    const client = c.client;

    // root-ca-certificate-publisher-controller: --root-ca-file in every namespace, restored after deletion.
    const ca = (await import('node:fs')).readFileSync(c.paths['/etc/kubernetes/pki/ca.pem'] ?? '', 'utf8');
    await client.create<Namespace>(R.namespaces, undefined, { metadata: { name: 'team-a' } });
    const rootCA = () => client.get<ConfigMap>(R.configmaps, 'team-a', 'kube-root-ca.crt').catch(() => undefined);
    expect((await waitFor('kube-root-ca.crt', rootCA, 30_000)).data).toEqual({ 'ca.crt': ca });
    await client.delete(R.configmaps, 'team-a', 'kube-root-ca.crt');
    expect((await waitFor('kube-root-ca.crt again', rootCA, 30_000)).data).toEqual({ 'ca.crt': ca });

    // serviceaccount-token-controller: the Secret is filled and its token authenticates.
    await client.create<ServiceAccount>(R.serviceaccounts, 'team-a', { metadata: { name: 'builder' } });
    await client.create<Secret>(R.secrets, 'team-a', {
      metadata: { name: 'builder-token', annotations: { 'kubernetes.io/service-account.name': 'builder' } },
      type: 'kubernetes.io/service-account-token',
    });
    const filled = await waitFor('a filled token Secret', async () => {
      const s = await client.get<Secret>(R.secrets, 'team-a', 'builder-token');
      return s.data?.token ? s : undefined;
    }, 30_000);
    expect(Buffer.from(filled.data?.['ca.crt'] ?? '', 'base64').toString()).toBe(ca);
    expect(Buffer.from(filled.data?.namespace ?? '', 'base64').toString()).toBe('team-a');
    const token = Buffer.from(filled.data?.token ?? '', 'base64').toString();
    const asBuilder = new RestClient({ server: c.apiserver.url, caData: Buffer.from(ca), token });
    // Authenticated (not 401) as the ServiceAccount, which RBAC lets list nothing.
    await expect(asBuilder.list(R.pods, 'team-a')).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('User "system:serviceaccount:team-a:builder" cannot list resource "pods"'),
    });
    await asBuilder.close();

    // bootstrap-signer-controller and token-cleaner-controller (enabled by *,bootstrapsigner,tokencleaner).
    await client.create<ConfigMap>(R.configmaps, 'kube-public', { metadata: { name: 'cluster-info' }, data: { kubeconfig: 'apiVersion: v1\nkind: Config\n' } });
    const token_ = (id: string, expiration: string): Secret => ({
      metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      type: 'bootstrap.kubernetes.io/token',
      data: { 'token-id': b64(id), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-signing': b64('true'), expiration: b64(expiration) },
    });
    await client.create(R.secrets, 'kube-system', token_('abcdef', '2999-01-01T00:00:00Z'));
    await client.create(R.secrets, 'kube-system', token_('oldold', '2000-01-01T00:00:00Z'));
    await waitFor('cluster-info signed', async () => (await client.get<ConfigMap>(R.configmaps, 'kube-public', 'cluster-info')).data?.['jws-kubeconfig-abcdef'], 30_000);
    await waitFor('the expired token deleted', () => client.get(R.secrets, 'kube-system', 'bootstrap-token-oldold').then(() => undefined, (e: { code?: number }) => e.code === 404), 30_000);
    expect(Object.keys((await client.get<ConfigMap>(R.configmaps, 'kube-public', 'cluster-info')).data ?? {}).sort()).toEqual(['jws-kubeconfig-abcdef', 'kubeconfig']);

    // node-ipam-controller: one range of each family, podCIDR the first.
    await client.create<Node>(R.nodes, undefined, { metadata: { name: 'k8s-node01' } });
    const spec = await waitFor('podCIDRs', async () => {
      const n = await client.get<Node>(R.nodes, undefined, 'k8s-node01');
      return n.spec?.podCIDRs?.length ? n.spec : undefined;
    }, 30_000);
    expect(spec).toMatchObject({ podCIDR: '172.208.0.0/24', podCIDRs: ['172.208.0.0/24', 'fc00:2222::/120'] });
    expect(proc.output()).not.toContain('invalid CIDR address');
    await proc.kill('SIGTERM');
  }, 120_000);
});

// Both seeds' kube-controller-manager units exactly as written, --cluster-signing-cert-file/-key-file included
// (seed-units.test.ts runs them without those two flags). The CSR controllers bring the flags; until they are in
// FLAGS this file is skipped (it enables itself once they exist: nothing to edit at merge).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import { FLAGS } from '@kemu/controller-manager';
import { SEED_000_KCM, SEED_003_KCM, SEED_003_KCM_SHORT, startSeedCluster, waitHealthy, waitLeaseHolder, type SeedCluster } from './seed-units.ts';

const HAS_SIGNING_FLAGS = 'cluster-signing-cert-file' in FLAGS && 'cluster-signing-key-file' in FLAGS;
let c: SeedCluster | undefined;

describe.skipIf(!HAS_SIGNING_FLAGS)("the seeds' controller-manager units, verbatim (with the cluster-signing flags)", () => {
  beforeAll(async () => {
    c = await startSeedCluster('kemu-seed-units-signing-');
  }, 60_000);
  afterAll(async () => c?.stop());

  for (const [seed, unit] of [
    ['000', SEED_000_KCM],
    ['003', SEED_003_KCM],
    ['003 (short)', SEED_003_KCM_SHORT],
  ] as const) {
    it(`seed ${seed}'s unit serves /healthz and takes the Lease`, async () => {
      if (!c) throw new Error('no cluster');
      const { proc, port } = await c.start(`kcm-${seed}`, 'controllerManager', unit);
      await waitHealthy(proc, port);
      expect(await waitLeaseHolder(c.client, 'kube-controller-manager', proc)).toMatch(/_/);
      await proc.kill('SIGTERM');
      await c.client.delete(R.leases, 'kube-system', 'kube-controller-manager');
    }, 60_000);
  }
});

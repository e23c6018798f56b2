// The walkthrough from the seed lessons, as a user would type it against `kemu up`: an nginx Deployment of 3
// reaches Running, the leader Leases show their holders, stopping the controller-manager leader moves its Lease
// (the restarted one comes back as a follower), and `kubectl get cs` answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/seed-walkthrough.test.ts: ${skip}`);

describe.skipIf(skip)('seed walkthrough (kubectl against kemu up)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ apiservers: 3, controllerManagers: 3, schedulers: 3, workers: 3 });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('kubectl create deployment nginx --replicas=3 → 3 pods Running on the workers', async () => {
    const c = await lab.kubectl('create', 'deployment', 'nginx', '--image=nginx:1.27', '--replicas=3');
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain('deployment.apps/nginx created');
    await waitFor('3 Running nginx pods', async () => {
      const r = await lab.kubectl('get', 'pods', '-l', 'app=nginx', '--no-headers');
      return r.code === 0 && r.stdout.split('\n').filter((l) => /\s1\/1\s+Running\s/.test(l)).length === 3;
    }, 90_000, 500);
    const wide = await lab.kubectl('get', 'pods', '-l', 'app=nginx', '-o', 'wide', '--no-headers');
    for (const line of wide.stdout.trim().split('\n')) expect(line).toMatch(/worker-[0-2]/);
    const d = await lab.kubectl('get', 'deployment', 'nginx', '--no-headers');
    expect(d.stdout).toMatch(/^nginx\s+3\/3\s+3\s+3\s/);
  }, 120_000);

  it('kubectl -n kube-system get lease shows a holder for the controller-manager and the scheduler', async () => {
    await waitFor('both leader leases held', async () => {
      const r = await lab.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', 'kube-scheduler', '--no-headers');
      return r.code === 0 && /kube-controller-manager\s+controller-manager-\d_/.test(r.stdout) && /kube-scheduler\s+scheduler-\d_/.test(r.stdout);
    }, 30_000, 300);
    const all = await lab.kubectl('-n', 'kube-system', 'get', 'lease', '--no-headers');
    expect(all.stdout.split('\n').filter((l) => l.startsWith('apiserver-'))).toHaveLength(3);
  });

  it('stopping the controller-manager leader moves the Lease; started again, it stays a follower', async () => {
    const holder = async () =>
      (await lab.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}')).stdout.split('_')[0] ?? '';
    const first = await holder();
    expect(first).toMatch(/^controller-manager-\d$/);
    expect((await lab.kemu('stop', first)).code).toBe(0);
    const second = await waitFor('a new holder', async () => {
      const h = await holder();
      return h && h !== first ? h : undefined;
    }, 20_000, 200);
    expect((await lab.kemu('start', first)).code).toBe(0);
    await lab.waitRunning([first], 60_000);
    expect(await holder()).toBe(second);
    // The new leader does the work: scale and see it happen.
    expect((await lab.kubectl('scale', 'deployment', 'nginx', '--replicas=4')).code).toBe(0);
    await waitFor('4 Running nginx pods', async () => {
      const r = await lab.kubectl('get', 'pods', '-l', 'app=nginx', '--no-headers');
      return r.stdout.split('\n').filter((l) => /\sRunning\s/.test(l)).length === 4;
    }, 60_000, 500);
  }, 120_000);

  it('kubectl get cs reports the scheduler, controller-manager and store healthy', async () => {
    const r = await lab.kubectl('get', 'cs');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('v1 ComponentStatus is deprecated');
    expect(r.stdout).toMatch(/scheduler\s+Healthy/);
    expect(r.stdout).toMatch(/controller-manager\s+Healthy/);
  });
});

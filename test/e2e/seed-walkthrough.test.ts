// The walkthrough from the seed lessons, as a user would type it against `kemu up`: `kubectl apply -f` an nginx
// Deployment of 3 and watch its pods go ContainerCreating → Running, see the leader Leases' holders, stop the
// controller-manager leader and see the Lease move (the restarted one comes back as a follower), and
// `kubectl get cs`.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';
import { ROOT } from '@kemu/kemu';
import { LeaseWatch } from '../lab/api.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/seed-walkthrough.test.ts: ${skip}`);

/** What the README's quick start applies. */
const NGINX = path.join(ROOT, 'deploy/examples/nginx.yaml');

/** `kubectl get pods -w --no-headers`, keeping each pod's STATUS column in the order the watch printed it. */
function kubectlWatch(lab: Lab, args: string[]): { child: ChildProcess; statuses: Map<string, string[]>; output: () => string } {
  const child = spawn('kubectl', [`--kubeconfig=${lab.kubeconfig}`, ...args], { env: { ...process.env, HOME: lab.dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  const statuses = new Map<string, string[]>();
  let out = '';
  let buf = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (d: string) => {
    out += d;
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const cols = buf.slice(0, nl).trim().split(/\s+/);
      buf = buf.slice(nl + 1);
      const [name, , status] = cols;
      if (!name || !status) continue;
      const seen = statuses.get(name) ?? [];
      if (seen[seen.length - 1] !== status) seen.push(status);
      statuses.set(name, seen);
    }
  });
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, statuses, output: () => out };
}

describe.skipIf(skip)('seed walkthrough (kubectl against kemu up)', () => {
  let lab: Lab;
  beforeAll(async () => {
    // A one-second emulated image pull, so ContainerCreating is a state a watch can see.
    lab = await startLab({ apiservers: 3, controllerManagers: 3, schedulers: 3, workers: 3, imagePullDelay: '1s' });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('kubectl apply -f deploy/examples/nginx.yaml → the watch shows each pod ContainerCreating, then Running on a worker', async () => {
    const w = kubectlWatch(lab, ['get', 'pods', '-w', '--no-headers']);
    try {
      // A pod of its own, printed by the watch, shows kubectl is watching before the Deployment exists.
      const p = await lab.kubectl('run', 'hello', '--image=busybox', '--restart=Never', '--', 'sleep', '3600');
      expect(p.code, p.stderr).toBe(0);
      await waitFor('kubectl get pods -w printing', () => w.statuses.has('hello'), 30_000, 100);
      const a = await lab.kubectl('apply', '-f', NGINX);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout).toContain('deployment.apps/nginx created');
      const shown = await waitFor('3 pods seen ContainerCreating then Running', () => {
        const done = [...w.statuses].filter(([name, s]) => {
          if (!name.startsWith('nginx-')) return false;
          const c = s.indexOf('ContainerCreating');
          return c >= 0 && s.indexOf('Running', c) > c;
        });
        return done.length === 3 ? done : undefined;
      }, 120_000, 200);
      for (const [, s] of shown) expect(s[s.length - 1]).toBe('Running');
    } catch (e) {
      throw new Error(`${String(e)}\nkubectl -w printed:\n${w.output()}`);
    } finally {
      w.child.kill('SIGKILL');
    }
    const wide = await lab.kubectl('get', 'pods', '-l', 'app=nginx', '-o', 'wide', '--no-headers');
    const lines = wide.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/\s1\/1\s+Running\s.*\sworker-[0-2]\s/);
    await waitFor('deployment 3/3', async () => /^nginx\s+3\/3\s+3\s+3\s/.test((await lab.kubectl('get', 'deployment', 'nginx', '--no-headers')).stdout), 30_000, 300);
  }, 180_000);

  it('kubectl -n kube-system get lease kube-controller-manager kube-scheduler shows their holders', async () => {
    const r = await waitFor('both leader leases held', async () => {
      const g = await lab.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', 'kube-scheduler');
      return g.code === 0 && /\nkube-controller-manager\s+controller-manager-[0-2]_[0-9a-f-]+\s/.test(g.stdout) && /\nkube-scheduler\s+scheduler-[0-2]_[0-9a-f-]+\s/.test(g.stdout) ? g : undefined;
    }, 60_000, 300);
    expect(r.stdout).toMatch(/^NAME\s+HOLDER\s+AGE/);
    const all = await lab.kubectl('-n', 'kube-system', 'get', 'lease', '--no-headers');
    expect(all.stdout.split('\n').filter((l) => l.startsWith('apiserver-'))).toHaveLength(3);
  });

  it('stopping the controller-manager leader moves the Lease within seconds; started again, it stays a follower', async () => {
    const holder = async () => (await lab.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}')).stdout.split('_')[0] ?? '';
    const lease = new LeaseWatch(lab.server, 'kube-controller-manager');
    await lease.start();
    try {
      const first = await holder();
      expect(first).toMatch(/^controller-manager-[0-2]$/);
      const t0 = Date.now();
      expect((await lab.kemu('stop', first)).code).toBe(0);
      const second = await waitFor('a new holder', async () => {
        const h = await holder();
        return h && h !== first ? h : undefined;
      }, 30_000, 200);
      const moved = Date.now() - t0;
      console.log(`kemu stop ${first} → kubectl shows ${second} as the holder after ${moved} ms`);
      expect(moved).toBeLessThan(10_000);

      const tStart = Date.now();
      expect((await lab.kemu('start', first)).code).toBe(0);
      await lab.waitRunning([first], 60_000);
      // The restarted one is a follower: give it several retry periods (counted as renewals of the new
      // holder, 500 ms apart) to try, and it must not have taken the Lease back.
      await waitFor('4 renewals by the new holder since the restart', () => lease.events.filter((e) => e.at > tStart && e.holder.startsWith(`${second}_`)).length >= 4, 30_000, 100);
      // Any holder other than the new one is a take-back. The change to the new holder itself can reach this
      // watch after the restart began on a loaded machine (kubectl's GET saw it first), so it is not one.
      expect(lease.history.filter((h) => h.at > tStart && !h.holder.startsWith(`${second}_`))).toEqual([]);
      expect(await holder()).toBe(second);
    } finally {
      lease.stop();
    }
    // The new leader does the work: scale and see it happen.
    expect((await lab.kubectl('scale', 'deployment', 'nginx', '--replicas=4')).code).toBe(0);
    await waitFor('4 Running nginx pods', async () => {
      const r = await lab.kubectl('get', 'pods', '-l', 'app=nginx', '--no-headers');
      return r.stdout.split('\n').filter((l) => /\s1\/1\s+Running\s/.test(l)).length === 4;
    }, 90_000, 500);
  }, 180_000);

  it('kubectl get cs reports scheduler, controller-manager and etcd-0 Healthy', async () => {
    const r = await waitFor('all componentstatuses Healthy', async () => {
      const g = await lab.kubectl('get', 'cs');
      return g.code === 0 && /\nscheduler\s+Healthy\s+ok/.test(g.stdout) && /\ncontroller-manager\s+Healthy\s+ok/.test(g.stdout) && /\netcd-0\s+Healthy\s+ok/.test(g.stdout) ? g : undefined;
    }, 30_000, 500);
    expect(r.stdout).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR/);
    expect(r.stderr).toContain('v1 ComponentStatus is deprecated');
  }, 60_000);
});

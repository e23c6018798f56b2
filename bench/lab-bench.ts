// Lab benchmarks, printed as figures (not part of npm test), each the median of --runs runs (default 3):
//  1. `kemu up` (3 apiservers, 3 controller-managers, 3 schedulers, 3 workers, built-in balancer) → all Nodes Ready;
//  2. controller-manager failover through the balancer: SIGTERM (straight, and through `kemu stop`) → the new
//     Lease holder, and → the first reconcile by the new leader (a Deployment scaled meanwhile gets its pod);
//  3. the longest gap between successful writes through the balancer when an apiserver is stopped or killed.
// usage: npm run bench -- lab [--runs N] (--help lists the flags)
import { waitFor } from '@kemu/base/testing/processes';
import { signalGroup } from '@kemu/kemu';
import { startLab, missing, FAST, type Lab, type LabOptions } from '../test/lab/lab.ts';
import { call, rec, LeaseWatch, PodWatch } from '../test/lab/api.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench, type Work } from './lib/workdir.ts';

const { runs: RUNS } = benchFlags('lab', { runs: { type: 'int', default: 3, usage: 'runs of each figure (the median is printed)' } }, (f) => atLeast(f, 1, ['runs']));
const LAB: LabOptions = { apiservers: 3, controllerManagers: 3, schedulers: 3, workers: 3 };

/**
 * A lab taken down at cleanup unless `down` (returned) ran first; registered before it is up, so an
 * interrupt while `kemu up` starts still waits for it and takes its components down.
 */
async function benchLab(work: Work): Promise<{ lab: Lab; down: () => Promise<void> }> {
  const starting = startLab(LAB);
  const down = work.defer(async () => (await starting).down());
  return { lab: await starting, down };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function report(what: string, xs: number[], unit: 'ms' | 's'): void {
  const f = (x: number) => (unit === 's' ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);
  console.log(`${what}: median ${f(median(xs))}  (runs: ${xs.map(f).join(', ')})`);
}

async function readyNodes(lab: Lab): Promise<number> {
  const r = await call(lab.server, 'GET', '/api/v1/nodes');
  const list = Array.isArray(rec(r.body).items) ? (rec(r.body).items as unknown[]).map(rec) : [];
  return list.filter((n) => {
    const conds = rec(n.status).conditions;
    return Array.isArray(conds) && conds.map(rec).some((c) => c.type === 'Ready' && c.status === 'True');
  }).length;
}

async function upToReady(work: Work): Promise<number> {
  const t0 = Date.now();
  const { lab, down } = await benchLab(work);
  try {
    await waitFor('3 Ready nodes', async () => (await readyNodes(lab)) === 3, 180_000, 100);
    return Date.now() - t0;
  } finally {
    await down();
  }
}

interface Failover {
  /** Stop issued → the new holder seen in a Lease watch. */
  toHolder: number;
  /** Stop issued → the pod the new leader creates for a Deployment scaled once the old one stopped acting. */
  toReconcile: number;
}

/**
 * One controller-manager hand-over. `cli`: through `kemu stop` (which returns once the process has exited);
 * otherwise SIGTERM straight to the leader's process group, as the supervisor sends it, without the CLI's
 * start-up. The old leader stops its controllers on SIGTERM, so the scale is sent once it cannot act on it.
 */
async function failover(lab: Lab, lease: LeaseWatch, pods: PodWatch, replicas: number, cli: boolean): Promise<Failover> {
  const first = await waitFor('leader', () => lease.component(), 30_000, 20);
  const t0 = Date.now();
  if (cli) {
    const r = await lab.kemu('stop', first);
    if (r.code !== 0) throw new Error(`kemu stop ${first}: ${r.stderr}`);
  } else {
    const pid = lab.state().components.find((c) => c.name === first)?.pid;
    if (!pid) throw new Error(`${first} has no pid`);
    signalGroup(pid, 'SIGTERM');
  }
  await waitFor('scaled', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/bench-failover/scale';
    const cur = rec((await call(lab.server, 'GET', path)).body);
    return (await call(lab.server, 'PUT', path, { ...cur, spec: { replicas } })).status === 200;
  }, 20_000, 20);
  const holder = await waitFor('new leader', () => lease.takeover(first, t0), 30_000, 10);
  await waitFor(`${replicas} pods`, () => pods.live().length === replicas, 60_000, 10);
  const done = Date.now();
  await waitFor(`${first} down`, () => lab.state().components.find((c) => c.name === first)?.pid === null, 30_000, 20);
  await lab.kemu('start', first);
  await lab.waitRunning([first], 60_000);
  return { toHolder: holder.at - t0, toReconcile: done - t0 };
}

async function writeGap(lab: Lab, victim: string, how: 'stop' | 'kill', round: number): Promise<{ gap: number; failed: number; writes: number }> {
  let stop = false;
  let last = Date.now();
  let gap = 0;
  let failed = 0;
  let writes = 0;
  let i = 0;
  const writer = (async () => {
    while (!stop) {
      try {
        const r = await call(lab.server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `gap-${how}-${round}-${i++}` } }, 3000);
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
  await waitFor('writes before', () => writes >= 100, 30_000, 10);
  await lab.kemu(how, victim);
  const after = writes;
  // a window past the balancer's health checks (every 1 s, out after 2 failures)
  const until = Date.now() + 3000;
  await waitFor('writes after', () => writes >= after + 300 && Date.now() >= until, 60_000, 10);
  stop = true;
  await writer;
  await lab.kemu('start', victim);
  await lab.waitRunning([victim], 60_000);
  return { gap, failed, writes };
}

async function main(work: Work): Promise<void> {
  const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker');
  if (skip) {
    console.log(`lab-bench: ${skip}`);
    return;
  }
  const ups: number[] = [];
  for (let k = 0; k < RUNS; k++) ups.push(await upToReady(work));
  report('kemu up → 3 Nodes Ready', ups, 's');

  const { lab, down } = await benchLab(work);
  try {
    await lab.waitRunning(undefined, 120_000);
    for (const how of ['stop', 'kill'] as const) {
      const gaps: number[] = [];
      let failed = 0;
      let total = 0;
      for (let k = 0; k < RUNS; k++) {
        const g = await writeGap(lab, `apiserver-${k % 3}`, how, k);
        gaps.push(g.gap);
        failed += g.failed;
        total += g.writes + g.failed;
      }
      report(`apiserver lost (kemu ${how}): longest gap between successful writes`, gaps, 'ms');
      console.log(`  ${failed} failed of ${total} writes`);
    }

    const lease = new LeaseWatch(lab.server, 'kube-controller-manager');
    await lease.start();
    const pods = new PodWatch(lab.server, 'default', 'app=bench-failover');
    await pods.start();
    await call(lab.server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'bench-failover' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'bench-failover' } }, template: { metadata: { labels: { app: 'bench-failover' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    await waitFor('1 pod', () => pods.live().length === 1, 60_000);
    const tag = `(lease ${FAST.leaseDuration}, retry ${FAST.retryPeriod})`;
    let replicas = 1;
    for (const cli of [false, true]) {
      const rounds: Failover[] = [];
      for (let k = 0; k < RUNS; k++) rounds.push(await failover(lab, lease, pods, ++replicas, cli));
      const how = cli ? 'kemu stop <leader>' : 'SIGTERM to the leader';
      report(`controller-manager failover ${tag}: ${how} → new Lease holder`, rounds.map((x) => x.toHolder), 'ms');
      report(`controller-manager failover ${tag}: ${how} → first reconcile by the new leader`, rounds.map((x) => x.toReconcile), 'ms');
    }
    lease.stop();
    pods.stop();
  } finally {
    await down();
  }
}

await runBench('lab', main);

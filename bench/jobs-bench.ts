// job-controller benchmark, printing figures: N Jobs × C completions (parallelism P) created at once against
// one kube-apiserver and one kube-controller-manager (--controllers=job); a stand-in for kubelets marks every
// new pod Succeeded. Time until every Job is Complete, pods/s, and extra pods (pods ever created beyond N × C,
// from a watch; must be 0).
// usage: npm run bench -- jobs [--jobs N] [--completions C] [--parallelism P] [--qps Q] [--burst B]
import { R, type Job, type Pod } from '@kemu/api';
import { holderName, startEnv } from '../test/controller-manager/cluster.ts';
import { waitFor } from '@kemu/base/testing/processes';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'jobs',
  {
    jobs: { type: 'int', default: 1000, usage: 'Jobs created at once' },
    completions: { type: 'int', default: 10, usage: 'completions per Job' },
    parallelism: { type: 'int', default: 5, usage: 'parallelism per Job' },
    // Kubernetes' default is 20/30; at that rate 10,000 pods take many minutes of pure throttling.
    qps: { type: 'float', default: 500, usage: "the controller-manager's --kube-api-qps" },
    burst: { type: 'int', default: 1000, usage: "the controller-manager's --kube-api-burst" },
    workers: { type: 'int', default: 5, usage: "the controller-manager's --concurrent-job-syncs" },
  },
  (f) => atLeast(f, 1, ['jobs', 'completions', 'parallelism', 'burst', 'workers']) ?? atLeast(f, 0, ['qps'], true),
);

function job(i: number): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: `bench-${i}`, namespace: 'default' },
    spec: {
      completions: flags.completions,
      parallelism: flags.parallelism,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] } },
    },
  };
}

async function pool<T>(items: T[], concurrency: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

await runBench('jobs', async (work) => {
  const env = await startEnv();
  const stop = work.defer(() => env.stop());
  try {
    await env.startManager('kcm-0', ['--controllers=job', `--concurrent-job-syncs=${flags.workers}`, `--kube-api-qps=${flags.qps}`, `--kube-api-burst=${flags.burst}`]);
    await waitFor('a leader', () => holderName(env.client), 60_000);
    const want = flags.jobs * flags.completions;
    const created = new Set<string>();
    const complete = new Set<string>();
    const ctrl = new AbortController();
    const finishing: Promise<unknown>[] = [];
    let allAt = 0;
    const t0 = Date.now();
    // Kubelet stand-in: every new pod succeeds at once.
    const pods = (async () => {
      for await (const ev of env.client.watch<Pod>(R.pods, 'default', { signal: ctrl.signal })) {
        const p = ev.object;
        if (ev.type !== 'ADDED' || created.has(p.metadata.uid ?? '')) continue;
        created.add(p.metadata.uid ?? '');
        finishing.push(env.client.updateStatus(R.pods, 'default', { ...p, status: { phase: 'Succeeded' } }).catch(() => undefined));
      }
    })().catch(() => undefined);
    const done = new Promise<void>((resolve) => {
      void (async () => {
        for await (const ev of env.client.watch<Job>(R.jobs, 'default', { signal: ctrl.signal })) {
          if (ev.object.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) complete.add(ev.object.metadata.name ?? '');
          if (!allAt && complete.size === flags.jobs) {
            allAt = Date.now();
            resolve();
          }
        }
      })().catch(() => undefined);
    });
    await pool(
      Array.from({ length: flags.jobs }, (_, i) => i),
      32,
      async (i) => {
        await env.client.create(R.jobs, 'default', job(i));
      },
    );
    const createdAll = Date.now() - t0;
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error(`timed out with ${complete.size}/${flags.jobs} Jobs complete`)), 30 * 60_000))]);
    // A moment for any late extra pod, then count.
    await new Promise((r) => setTimeout(r, 5000));
    ctrl.abort();
    await pods;
    await Promise.all(finishing);
    const ms = allAt - t0;
    console.log(`jobs: ${flags.jobs} Jobs × ${flags.completions} completions, parallelism ${flags.parallelism} (--concurrent-job-syncs=${flags.workers} --kube-api-qps=${flags.qps} --kube-api-burst=${flags.burst})`);
    console.log(`  jobs created in ${createdAll} ms`);
    console.log(`  all Complete after ${(ms / 1000).toFixed(1)} s → ${(want / (ms / 1000)).toFixed(0)} pods/s`);
    console.log(`  extra pods: ${created.size - want} (${created.size} created for ${want} completions)`);
  } finally {
    await stop();
  }
});

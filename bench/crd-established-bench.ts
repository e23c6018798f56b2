// Time from creating a CustomResourceDefinition to Established, and to its resource served by each of the three
// apiserver replicas of a lab (each follows CRDs through its own watch): --runs CRDs, each created through the
// next replica in turn; prints the median and max of both figures.
// usage: npm run bench -- crd-established [--runs 10] (--help lists the flags)
import { startLab, type LabOptions } from '../test/lab/lab.ts';
import { call, rec } from '../test/lab/api.ts';
import { crdObject, version } from '../packages/apiserver/src/testing/crd.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const { runs: RUNS } = benchFlags('crd-established', { runs: { type: 'int', default: 10, usage: 'CRDs created (the median and max are printed)' } }, (f) => atLeast(f, 1, ['runs']));
const LAB: LabOptions = { apiservers: 3, controllerManagers: 1, schedulers: 1, workers: 0 };
const REPLICAS = ['apiserver-0', 'apiserver-1', 'apiserver-2'];
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Polls until check holds (every 2 ms), returning the time it first held. */
async function when(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<number> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now();
}

const established = (crd: unknown) => ((rec(rec(crd).status).conditions as unknown[] | undefined) ?? []).some((c) => rec(c).type === 'Established' && rec(c).status === 'True');

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${(s[Math.floor(s.length / 2)] ?? NaN).toFixed(0)} ms  max ${(s.at(-1) ?? NaN).toFixed(0)} ms`;
}

await runBench('crd-established', async (work) => {
  const starting = startLab(LAB);
  const down = work.defer(async () => (await starting).down());
  const lab = await starting;
  await lab.waitRunning(REPLICAS, 120_000);
  const urls = REPLICAS.map((n) => lab.url(n));
  const toEstablished: number[] = [];
  const toServedEverywhere: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const plural = `things${i}`;
    const group = 'bench.example.com';
    const via = urls[i % urls.length] as string;
    const list = `/apis/${group}/v1/namespaces/default/${plural}`;
    const t0 = performance.now();
    const created = await call(via, 'POST', CRDS, crdObject({ group, names: { plural, kind: `Thing${i}` }, versions: [version('v1', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })] }));
    if (created.status !== 201) throw new Error(`CRD ${plural}: ${created.status} ${JSON.stringify(created.body)}`);
    const [est, ...served] = await Promise.all([
      when(async () => established((await call(via, 'GET', `${CRDS}/${plural}.${group}`)).body)),
      ...urls.map((u) => when(async () => (await call(u, 'GET', list)).status === 200)),
    ]);
    toEstablished.push((est as number) - t0);
    toServedEverywhere.push(Math.max(...served) - t0);
  }
  console.log(`${RUNS} CRDs, each created through the next of 3 apiserver replicas`);
  console.log(`create → Established:               ${stats(toEstablished)}`);
  console.log(`create → served by all 3 replicas:  ${stats(toServedEverywhere)}`);
  await down();
});

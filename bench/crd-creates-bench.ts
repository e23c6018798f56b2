// In-process benchmark of custom resource creates against ConfigMap creates in the same run: a CRD whose schema
// has 50 fields (strings, integers, booleans, with bounds, patterns and enums) and two x-kubernetes-validations
// CEL rules; N creates of each through an apiserver (MemoryBackend, fastify inject), `concurrency` at a time;
// runs alternate (ConfigMaps, custom resources, again); prints creates/s and per-create p50/p99 of each run and
// the ratio of the best runs.
// usage: npm run bench -- crd-creates [--creates 2000] [--concurrency 8] [--rounds 2] (--help lists the flags)
import { startMemoryApiServer } from '../packages/apiserver/src/testing/memory-server.ts';
import { crdObject, version } from '../packages/apiserver/src/testing/crd.ts';
import { atLeast, benchFlags } from './lib/flags.ts';

const flags = benchFlags(
  'crd-creates',
  {
    creates: { type: 'int', default: 2000, usage: 'creates per kind and round' },
    concurrency: { type: 'int', default: 8, usage: 'creates in flight' },
    rounds: { type: 'int', default: 2, usage: 'alternating runs of each kind' },
  },
  (f) => atLeast(f, 1, ['creates', 'concurrency', 'rounds']),
);

const srv = await startMemoryApiServer();
const inject = (method: 'GET' | 'POST', url: string, payload?: unknown) => srv.app.inject({ method, url, ...(payload ? { payload: payload as Record<string, unknown> } : {}) });

// 50 fields: f00..f49 cycling through five kinds of checks.
const props: Record<string, unknown> = {};
const values: Record<string, unknown> = {};
for (let i = 0; i < 50; i++) {
  const name = `f${String(i).padStart(2, '0')}`;
  switch (i % 5) {
    case 0:
      props[name] = { type: 'string', maxLength: 64 };
      values[name] = `value-${i}`;
      break;
    case 1:
      props[name] = { type: 'integer', minimum: 0, maximum: 1000 };
      values[name] = i;
      break;
    case 2:
      props[name] = { type: 'string', pattern: '^[a-z0-9-]+$' };
      values[name] = `name-${i}`;
      break;
    case 3:
      props[name] = { type: 'boolean' };
      values[name] = i % 2 === 0;
      break;
    default:
      props[name] = { type: 'string', enum: ['a', 'b', 'c'] };
      values[name] = 'b';
  }
}
const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: props,
      'x-kubernetes-validations': [
        { rule: 'self.f01 <= self.f06', message: 'f01 must not exceed f06' },
        { rule: "self.f00.startsWith('value-')", message: 'f00 must start with value-' },
      ],
    },
  },
};
const URL = '/apis/bench.example.com/v1/namespaces/default/widgets';

async function run(count: number, concurrency: number, create: (i: number) => Promise<void>): Promise<{ perSecond: number; ms: number[] }> {
  const ms: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const s = process.hrtime.bigint();
        await create(i);
        ms.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { perSecond: count / seconds, ms: ms.sort((a, b) => a - b) };
}

const expect201 = (what: string, r: { statusCode: number; body: string }) => {
  if (r.statusCode !== 201) throw new Error(`${what}: ${r.statusCode} ${r.body}`);
};
const configMap = (prefix: string) => async (i: number) =>
  expect201(`configmap ${i}`, await inject('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${i}` }, data: { a: 'b' } }));
const widget = (prefix: string) => async (i: number) =>
  expect201(`widget ${i}`, await inject('POST', URL, { apiVersion: 'bench.example.com/v1', kind: 'Widget', metadata: { name: `${prefix}-${i}` }, spec: values }));

const pct = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
const line = (name: string, r: { perSecond: number; ms: number[] }) => `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(6)} creates/s  p50 ${pct(r.ms, 50).toFixed(2)} ms  p99 ${pct(r.ms, 99).toFixed(2)} ms`;

try {
  expect201('CRD', await inject('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crdObject({ group: 'bench.example.com', names: { plural: 'widgets', kind: 'Widget' }, versions: [version('v1', schema)] })));
  const deadline = Date.now() + 10_000;
  while ((await inject('GET', URL)).statusCode !== 200) {
    if (Date.now() > deadline) throw new Error('custom resource not served');
    await new Promise((r) => setTimeout(r, 10));
  }
  // Warm-up of both paths, then alternate measured runs (the machine may be shared: the best run of each counts).
  await run(200, flags.concurrency, configMap('warm'));
  await run(200, flags.concurrency, widget('warm'));
  const cms: Awaited<ReturnType<typeof run>>[] = [];
  const crs: Awaited<ReturnType<typeof run>>[] = [];
  for (let round = 0; round < flags.rounds; round++) {
    cms.push(await run(flags.creates, flags.concurrency, configMap(`cm${round}`)));
    crs.push(await run(flags.creates, flags.concurrency, widget(`cr${round}`)));
  }
  const best = (rs: Awaited<ReturnType<typeof run>>[]) => rs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
  console.log(`${flags.creates} creates per run, ${flags.concurrency} in flight, ${flags.rounds} rounds (in-process, MemoryBackend)`);
  cms.forEach((r, i) => console.log(line(`ConfigMap, round ${i + 1}`, r)));
  crs.forEach((r, i) => console.log(line(`custom resource, round ${i + 1}`, r)));
  console.log(line('best ConfigMap', best(cms)));
  console.log(line('best custom resource (50f, 2 CEL)', best(crs)));
  console.log(`custom resource / ConfigMap       ${(best(crs).perSecond / best(cms).perSecond).toFixed(2)}x`);
} finally {
  await srv.close();
}

// In-process benchmark of the latency one validating admission webhook adds to a write: N ConfigMap creates
// through an apiserver (MemoryBackend, fastify inject) with no webhook, then N with one ValidatingWebhookConfiguration
// that matches them, called over HTTPS on 127.0.0.1 (a Node server that allows every request); each create timed
// alone; prints p50/p99/max of both runs and the difference.
// usage: npm run bench -- webhook [--creates 2000] (--help lists the flags)
import { startMemoryApiServer } from '../packages/apiserver/src/testing/memory-server.ts';
import { startWebhookServer } from '../packages/apiserver/src/testing/webhook-server.ts';
import { atLeast, benchFlags } from './lib/flags.ts';

const flags = benchFlags('webhook', { creates: { type: 'int', default: 2000, usage: 'ConfigMap creates timed per run' } }, (f) => atLeast(f, 1, ['creates']));

const srv = await startMemoryApiServer();
const hook = await startWebhookServer(() => ({ allowed: true }));

async function run(prefix: string): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < flags.creates; i++) {
    const t0 = process.hrtime.bigint();
    const r = await srv.app.inject({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${i}` }, data: { a: 'b' } } });
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.statusCode !== 201) throw new Error(`create ${prefix}-${i}: ${r.statusCode} ${r.body}`);
  }
  return ms.sort((a, b) => a - b);
}

const pct = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
const line = (name: string, s: number[]) => `${name.padEnd(16)} p50 ${pct(s, 50).toFixed(2)} ms  p99 ${pct(s, 99).toFixed(2)} ms  max ${(s.at(-1) ?? 0).toFixed(2)} ms`;

try {
  await run('warm');
  const without = await run('plain');
  const cfg = await srv.app.inject({
    method: 'POST',
    url: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    payload: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench' },
      webhooks: [
        {
          name: 'allow.bench.example.com',
          clientConfig: { url: hook.url('/'), caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
  });
  if (cfg.statusCode !== 201) throw new Error(`webhook configuration: ${cfg.statusCode} ${cfg.body}`);
  const withHook = await run('hooked');
  console.log(`${flags.creates} ConfigMap creates each (in-process, MemoryBackend)`);
  console.log(line('no webhook', without));
  console.log(line('one webhook', withHook));
  console.log(`added            p50 ${(pct(withHook, 50) - pct(without, 50)).toFixed(2)} ms  p99 ${(pct(withHook, 99) - pct(without, 99)).toFixed(2)} ms  (${hook.requests.length} webhook calls)`);
} finally {
  await hook.close();
  await srv.close();
}

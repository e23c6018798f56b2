// In-process benchmark of the Node authorizer's decision cost over a real watch cache: P pods bound to N
// nodes (each with the ServiceAccount token volume, a Secret volume, a ConfigMap envFrom), then the time of
// each decision — steady, while pods change between decisions, and after the cache's history overflowed.
// usage: npm run bench -- node-authz [--pods 10000] [--nodes 1000] [--decisions 100000] (--help lists the flags)
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import type { UserInfo } from '../packages/apiserver/src/authn/user.ts';
import type { Attributes } from '../packages/apiserver/src/authz/types.ts';
import { NodeAuthorizer } from '../packages/apiserver/src/authz/node/node-authorizer.ts';
import { nodeGraphFromCacher } from '../packages/apiserver/src/authz/node/node-graph-from-cacher.ts';
import { Cacher } from '../packages/apiserver/src/watch/cacher.ts';
import { atLeast, benchFlags } from './lib/flags.ts';

const flags = benchFlags(
  'node-authz',
  {
    pods: { type: 'int', default: 10_000, usage: 'bound pods in the watch cache' },
    nodes: { type: 'int', default: 1000, usage: 'nodes the pods are spread over' },
    decisions: { type: 'int', default: 100_000, usage: 'decisions timed in the steady phase' },
    history: { type: 'int', default: 10_000, usage: "the watch cache's event history per resource (the Cacher's default)" },
  },
  (f) => atLeast(f, 1, ['pods', 'nodes', 'decisions', 'history']),
);
const { pods: P, nodes: N, decisions: D, history } = flags;

const NS = 20;
const nsOf = (i: number): string => `ns${i % NS}`;
const nodeOf = (i: number): string => `n${i % N}`;
const user = (node: string): UserInfo => ({ username: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'] });
const podKey = (i: number): string => `/registry/pods/${nsOf(i)}/p${i}`;
const podJSON = (i: number, node = nodeOf(i), phase = 'Running'): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: nsOf(i), uid: `uid-${i}-${node}`, labels: { app: `app${i % 500}` } },
    spec: {
      nodeName: node,
      serviceAccountName: `sa${i % 50}`,
      containers: [{ name: 'c', image: 'nginx', envFrom: [{ configMapRef: { name: `config-${i % 500}` } }] }],
      volumes: [
        { name: 'tls', secret: { secretName: `tls-${i % 500}` } },
        {
          name: 'kube-api-access-abcde',
          projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }, { downwardAPI: {} }] },
        },
      ],
    },
    status: { phase },
  });

function attrs(node: string, resource: string, namespace: string, name: string, verb = 'get', subresource = ''): Attributes {
  return { user: user(node), verb, resourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource, namespace, name };
}

/** A mix of requests kubelets make: half allowed (their pods' objects), half not (another node's). */
function request(k: number): Attributes {
  const i = (k * 7919) % P;
  const own = k % 2 === 0;
  const node = own ? nodeOf(i) : nodeOf(i + 1);
  switch (k % 5) {
    case 0:
      return attrs(node, 'secrets', nsOf(i), `tls-${i % 500}`);
    case 1:
      return attrs(node, 'configmaps', nsOf(i), 'kube-root-ca.crt');
    case 2:
      return attrs(node, 'serviceaccounts', nsOf(i), `sa${i % 50}`, 'create', 'token');
    case 3:
      return attrs(node, 'pods', nsOf(i), `p${i}`);
    default:
      return attrs(node, 'configmaps', nsOf(i), `config-${i % 500}`);
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
/** Wall time per decision (p50/p99/max), and the phase's CPU time per decision (the machine may be shared: CPU is the steadier figure). */
function summary(phase: string, ms: number[], cpuFrom: NodeJS.CpuUsage, extra: Record<string, unknown> = {}): void {
  const cpu = process.cpuUsage(cpuFrom);
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const us = (x: number): number => +(x * 1000).toFixed(2);
  console.log(
    JSON.stringify({ bench: 'node-authz', phase, decisions: s.length, meanUs: us(mean), p50Us: us(pct(s, 50)), p99Us: us(pct(s, 99)), maxUs: us(s[s.length - 1] ?? 0), ...extra, phaseCpuMs: Math.round((cpu.user + cpu.system) / 1000) }),
  );
}
const cpuMs = (from: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(from);
  return +((c.user + c.system) / 1000).toFixed(1);
};

const backend = new MemoryBackend();
const t0 = performance.now();
for (let i = 0; i < P; i++) await backend.create(podKey(i), podJSON(i));
const cacher = new Cacher({ backend, logger: silentLogger(), historySize: history });
await cacher.start();
console.log('== %d pods on %d nodes written and cached in %s ms', P, N, (performance.now() - t0).toFixed(0));
const graph = nodeGraphFromCacher(cacher);
const az = new NodeAuthorizer(graph);

try {
  // 1. The first decision builds the graph from the cache.
  let c0 = process.cpuUsage();
  let t = performance.now();
  az.authorize(request(0));
  console.log(JSON.stringify({ bench: 'node-authz', phase: 'first decision (graph built from the cache)', ms: +(performance.now() - t).toFixed(1), cpuMs: cpuMs(c0), ...graph.graph.stats() }));

  // 2. Steady: nothing changes between decisions.
  const steady: number[] = [];
  let allowed = 0;
  c0 = process.cpuUsage();
  for (let k = 0; k < D; k++) {
    const a = request(k);
    t = performance.now();
    const d = az.authorize(a);
    steady.push(performance.now() - t);
    if ('decision' in d && d.decision === 'allow') allowed++;
  }
  summary('steady', steady, c0, { allowed });
  if (allowed !== D / 2 && D % 2 === 0) throw new Error(`expected half the decisions allowed, got ${allowed} of ${D}`);

  // 3. Churn: 10 pod status updates land between decisions (the graph catches up inside the decision).
  const churn: number[] = [];
  c0 = process.cpuUsage();
  const rounds = Math.min(2000, Math.floor(history / 10) - 1);
  for (let r = 0; r < rounds; r++) {
    let rev = 0;
    for (let u = 0; u < 10; u++) {
      const i = (r * 10 + u) % P;
      rev = (await backend.update(podKey(i), podJSON(i, nodeOf(i), r % 2 === 0 ? 'Pending' : 'Running'))).modRevision;
    }
    await cacher.waitFor(rev);
    const a = request(r);
    t = performance.now();
    az.authorize(a);
    churn.push(performance.now() - t);
  }
  // The phase's CPU includes the 10 writes and the watch cache applying them, not only the decisions.
  summary('10 pod status updates before each decision', churn, c0);

  // 4. Rebinding: a pod deleted and recreated on another node before each decision.
  const moves: number[] = [];
  c0 = process.cpuUsage();
  for (let r = 0; r < Math.min(1000, Math.floor(history / 2) - 1); r++) {
    const i = (r * 13) % P;
    await backend.delete(podKey(i));
    const kv = await backend.create(podKey(i), podJSON(i, nodeOf(i + 1 + r)));
    await cacher.waitFor(kv.modRevision);
    t = performance.now();
    const d = az.authorize(attrs(nodeOf(i + 1 + r), 'secrets', nsOf(i), `tls-${i % 500}`));
    moves.push(performance.now() - t);
    if (d.decision !== 'allow') throw new Error(`pod p${i} moved to ${nodeOf(i + 1 + r)} but its node was refused its secret`);
  }
  summary('a pod recreated on another node before each decision', moves, c0);

  // 5. More pod events than the cache's history holds: the next decision rebuilds the graph.
  let rev = 0;
  for (let u = 0; u <= history; u++) rev = (await backend.update(podKey(u % P), podJSON(u % P, undefined, u % 2 === 0 ? 'Pending' : 'Running'))).modRevision;
  await cacher.waitFor(rev);
  const before = graph.rebuilds;
  c0 = process.cpuUsage();
  t = performance.now();
  az.authorize(request(1));
  console.log(
    JSON.stringify({ bench: 'node-authz', phase: 'decision after the history overflowed (full rebuild)', ms: +(performance.now() - t).toFixed(1), cpuMs: cpuMs(c0), rebuilt: graph.rebuilds > before }),
  );
} finally {
  cacher.stop();
}

// DaemonSet and StatefulSet controller benchmark, printing figures (one apiserver, one controller-manager, pods
// marked Ready by the bench itself as a kubelet would, no scheduler):
//  1. a StatefulSet of N replicas, OrderedReady: time until all N are Ready, pods/s;
//  2. a DaemonSet over M Node objects, then a new image: time until every node runs an updated pod (maxUnavailable).
// usage: npm run bench -- sets [--replicas N] [--nodes M] [--max-unavailable U] (--help lists the flags)
import { R, type DaemonSet, type Node, type StatefulSet } from '@kemu/api';
import { PodTracker, holderName, startEnv, waitFor } from '../test/controller-manager/cluster.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'sets',
  {
    replicas: { type: 'int', default: 100, usage: 'replicas of the StatefulSet' },
    nodes: { type: 'int', default: 1000, usage: 'Node objects the DaemonSet runs on' },
    'max-unavailable': { type: 'string', default: '10%', usage: "the DaemonSet's rollingUpdate.maxUnavailable" },
  },
  (f) => atLeast(f, 1, ['replicas', 'nodes']),
);

await runBench('sets', async (work) => {
  const env = await startEnv();
  work.defer(() => env.stop());
  const manager = await env.startManager('kcm-0', ['--kube-api-qps=500', '--kube-api-burst=1000', '--controllers=statefulset,daemonset']);
  let stopping = false;
  work.defer(async () => {
    stopping = true;
  });
  void manager.exited.then((code) => {
    if (!stopping) console.error(`kube-controller-manager exited (${code}):\n${manager.output().slice(-4000)}`);
  });
  await waitFor('a leader', () => holderName(env.client), 60_000);

  const stsPods = new PodTracker(env.client, 'default', true);
  work.defer(async () => stsPods.stop());
  const sts: StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: flags.replicas,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
    },
  };
  let t0 = Date.now();
  await env.client.create(R.statefulsets, 'default', sts);
  await waitFor('every replica Ready', async () => ((await env.client.get<StatefulSet>(R.statefulsets, 'default', 'web')).status?.readyReplicas ?? 0) === flags.replicas, 30 * 60_000, 100);
  let ms = Date.now() - t0;
  console.log(`statefulset: ${flags.replicas} replicas OrderedReady all Ready after ${(ms / 1000).toFixed(1)} s → ${(flags.replicas / (ms / 1000)).toFixed(1)} pods/s`);

  for (let i = 0; i < flags.nodes; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, flags.nodes - i) }, (_, j) =>
        env.client.create<Node>(R.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${i + j}` }, spec: {} }),
      ),
    );
  const dsPods = new PodTracker(env.client, 'kube-system', true);
  work.defer(async () => dsPods.stop());
  const ds: DaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'kube-system' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: /^\d+$/.test(flags['max-unavailable']) ? Number(flags['max-unavailable']) : flags['max-unavailable'] } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
    },
  };
  const get = () => env.client.get<DaemonSet>(R.daemonsets, 'kube-system', 'agent');
  t0 = Date.now();
  await env.client.create(R.daemonsets, 'kube-system', ds);
  await waitFor('a pod Ready on every node', async () => ((await get()).status?.numberReady ?? 0) === flags.nodes, 30 * 60_000, 200);
  ms = Date.now() - t0;
  console.log(`daemonset: ${flags.nodes} nodes, all pods Ready after ${(ms / 1000).toFixed(1)} s`);
  const cur = await get();
  cur.spec.template.spec.containers[0]!.image = 'agent:2';
  t0 = Date.now();
  await env.client.update(R.daemonsets, 'kube-system', cur);
  await waitFor('every node updated', async () => {
    const st = (await get()).status;
    return (st?.observedGeneration ?? 0) >= 2 && st?.updatedNumberScheduled === flags.nodes && st.numberAvailable === flags.nodes;
  }, 30 * 60_000, 200);
  ms = Date.now() - t0;
  console.log(`daemonset rollout (maxUnavailable ${flags['max-unavailable']}): all ${flags.nodes} nodes updated after ${(ms / 1000).toFixed(1)} s`);
});

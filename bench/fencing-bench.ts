// Fencing benchmark: writes accepted after a frozen leader wakes (goal 0). Two kube-scheduler (and two
// kube-controller-manager) replicas, each through a counting proxy to one kube-apiserver; each round gives the
// leader work (pods to bind; a Deployment to fill), holds its requests in the proxy once it is writing (writes
// in flight), SIGSTOPs it, waits for the follower to take the Lease, lets the held writes go on, SIGCONTs it and
// counts the old leader's writes the apiserver accepted after the hand-over. The frozen replica is restarted
// as the next follower. Short leases by default, so rounds are quick.
// usage: npm run bench -- fencing [--rounds 20] [--kinds controller-manager,scheduler] [--pods 150]
//        [--lease-duration 2s] [--renew-deadline 1500ms] [--retry-period 500ms] (--help lists the flags)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { R, type Deployment, type Node, type Pod } from '@kemu/api';
import { formatDuration } from '@kemu/base';
import { waitFor } from '@kemu/base/testing/processes';
import { RestClient } from '@kemu/client';
import { startReplica } from '../test/apiserver/cluster.ts';
import { accepted } from '../test/chaos/counting-proxy.ts';
import { freezeRound, type FreezeRound } from '../test/chaos/freeze-round.ts';
import { LEADER_ELECTED, startProxied, type LeaderElectedKind, type ProxiedComponent } from '../test/chaos/proxied-component.ts';
import { leaseHolderName } from '../test/support/single-apiserver.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';
import { runBench, type Work } from './lib/workdir.ts';

const flags = benchFlags(
  'fencing',
  {
    rounds: { type: 'int', default: 20, usage: 'freeze/wake rounds per kind' },
    kinds: { type: 'stringArray', default: Object.keys(LEADER_ELECTED).filter((k) => existsSync(LEADER_ELECTED[k as LeaderElectedKind].bin)), usage: 'components to measure, two replicas each' },
    pods: { type: 'int', default: 150, usage: 'pods per round (to bind, or the Deployment to fill)' },
    'lease-duration': { type: 'duration', default: 2_000, usage: "the replicas' --leader-elect-lease-duration" },
    'renew-deadline': { type: 'duration', default: 1_500, usage: "the replicas' --leader-elect-renew-deadline" },
    'retry-period': { type: 'duration', default: 500, usage: "the replicas' --leader-elect-retry-period" },
  },
  (f) => atLeast(f, 1, ['rounds', 'pods']) ?? oneOf(f, 'kinds', Object.keys(LEADER_ELECTED)),
);
const kinds = flags.kinds as LeaderElectedKind[];
const durations = { lease: formatDuration(flags['lease-duration']), renew: formatDuration(flags['renew-deadline']), retry: formatDuration(flags['retry-period']) };
const leaderFlags = [`--leader-elect-lease-duration=${durations.lease}`, `--leader-elect-renew-deadline=${durations.renew}`, `--leader-elect-retry-period=${durations.retry}`];
const PODS = flags.pods;
/** The leader is writing steadily once this many of the round's writes were accepted. */
const BUSY = Math.min(20, Math.ceil(PODS / 5));

const pod = (name: string, labels: Record<string, string>): Pod => ({ metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9' }] } });

/** Gives the leader a round's work and resolves once it is writing it. */
async function busy(kind: LeaderElectedKind, client: RestClient, leader: ProxiedComponent, round: number): Promise<void> {
  const from = leader.proxy.requests.length;
  let writes: () => number;
  if (kind === 'scheduler') {
    const ns = 'default';
    for (let i = 0; i < PODS; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, PODS - i) }, (_, k) => client.create<Pod>(R.pods, ns, pod(`r${round}-${i + k}`, { round: String(round) }))));
    writes = () => leader.proxy.requests.slice(from).filter((r) => r.path.endsWith('/binding') && accepted(r)).length;
  } else {
    const ns = `fencing-${round}`;
    await client.create(R.namespaces, undefined, { metadata: { name: ns } });
    const labels = { app: 'filler' };
    const d = { metadata: { name: 'filler' }, spec: { replicas: PODS, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod('', labels).spec } } };
    await client.create<Deployment>(R.deployments, ns, d as Deployment);
    writes = () => leader.proxy.requests.slice(from).filter((r) => r.method === 'POST' && r.path.startsWith(`/api/v1/namespaces/${ns}/pods`) && accepted(r)).length;
  }
  await waitFor(`${leader.name} writing (${BUSY} of round ${round}'s writes accepted)`, () => writes() >= BUSY, 60_000, 5);
}

async function runKind(kind: LeaderElectedKind, url: string, client: RestClient, work: Work): Promise<FreezeRound[]> {
  const lease = LEADER_ELECTED[kind].lease;
  const prefix = kind === 'scheduler' ? 'sched' : 'kcm';
  const replicas = new Map<string, ProxiedComponent>();
  const rounds: FreezeRound[] = [];
  for (const i of [0, 1]) {
    const c = await startProxied(kind, `${prefix}-${i}`, url, work.dir, leaderFlags);
    work.defer(() => c.stop());
    replicas.set(c.name, c);
  }
  const holder = () => waitFor(`a ${lease} holder`, () => leaseHolderName(client, lease), 60_000, 20);
  console.log(`\n${kind}: 2 replicas through counting proxies, Lease kube-system/${lease}, ${flags.rounds} rounds`);
  for (let i = 0; i < flags.rounds; i++) {
    const leader = replicas.get(await holder());
    if (!leader) throw new Error(`the ${lease} holder is neither replica`);
    await busy(kind, client, leader, i);
    const r = await freezeRound({ client, lease, name: leader.name, proc: leader.proc, proxy: leader.proxy });
    rounds.push(r);
    const byCode = new Map<string, number>();
    for (const [k, n] of r.answers) byCode.set(k.split(' ')[0] ?? '', (byCode.get(k.split(' ')[0] ?? '') ?? 0) + n);
    const answers = [...byCode].map(([code, n]) => `${n}× ${code}`).join(', ');
    console.log(
      `  round ${String(i + 1).padStart(2)} ${leader.name} → ${r.newHolder}: hand-over ${(r.handoverMs / 1000).toFixed(2)} s; ` +
        `held in flight ${r.held}, sent after waking ${r.afterWake}; accepted after the hand-over ${r.acceptedAfterHandover} (answers: ${answers || 'none'}); exit ${r.exit}`,
    );
    await leader.restart();
  }
  return rounds;
}

function summary(kind: string, rs: FreezeRound[]): string {
  const sum = (f: (r: FreezeRound) => number) => rs.reduce((a, r) => a + f(r), 0);
  const acceptedAfter = sum((r) => r.acceptedAfterHandover);
  const exits = rs.filter((r) => r.exit === 1).length;
  return (
    `  ${kind}: ${rs.length} rounds; writes accepted after the hand-over: ${acceptedAfter} (goal 0: ${acceptedAfter === 0 ? 'met' : 'MISSED'}), ` +
    `max ${Math.max(...rs.map((r) => r.acceptedAfterHandover))} in a round; writes held in flight at the freeze ${sum((r) => r.held)} (accepted ${sum((r) => r.heldAccepted)}); ` +
    `sent after waking ${sum((r) => r.afterWake)} (accepted ${sum((r) => r.afterWakeAccepted)}); old leader exit 1 in ${exits}/${rs.length}`
  );
}

await runBench('fencing', async (work) => {
  console.log(`fencing: lease ${durations.lease}, renew deadline ${durations.renew}, retry ${durations.retry}; ${PODS} pods per round; kinds: ${kinds.join(', ') || '(none)'}`);
  const api = await startReplica(path.join(work.dir, 'state.db'), 'apiserver-0');
  const client = new RestClient({ server: api.url, qps: 1000, burst: 1000 });
  work.defer(() => client.close());
  const room = String(Math.max(110, PODS * flags.rounds));
  for (const n of ['fence-a', 'fence-b']) {
    const status = { capacity: { cpu: '1000', memory: '1000Gi', pods: room }, allocatable: { cpu: '1000', memory: '1000Gi', pods: room }, conditions: [{ type: 'Ready', status: 'True' }] };
    await client.create<Node>(R.nodes, undefined, { metadata: { name: n, labels: { 'kubernetes.io/hostname': n } }, status } as Node);
  }
  const results: [string, FreezeRound[]][] = [];
  let failed = 0;
  for (const k of kinds) {
    try {
      results.push([k, await runKind(k, api.url, client, work)]);
    } catch (e) {
      failed++;
      console.error(`${k}: ${(e as Error).message}`);
    }
  }
  console.log('\nsummary:');
  for (const [k, rs] of results) console.log(summary(k, rs));
  if (failed) throw new Error(`${failed} of ${kinds.length} kinds failed`);
  if (results.some(([, rs]) => rs.some((r) => r.acceptedAfterHandover > 0))) throw new Error('a frozen leader had writes accepted after the hand-over');
});

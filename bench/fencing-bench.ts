// Fencing benchmark: writes accepted after a frozen leader wakes (goal 0). Two kube-scheduler (and two
// kube-controller-manager) replicas, each through a counting proxy to one kube-apiserver; each round gives the
// leader work (pods to bind; a Deployment to fill), holds its requests in the proxy once it is writing (writes
// in flight), SIGSTOPs it, waits for the follower to take the Lease, lets the held writes go on, SIGCONTs it and
// counts the old leader's writes the apiserver accepted after the hand-over. The frozen replica is restarted
// as the next follower. Short leases by default, so rounds are quick. --strip-lease-header makes the proxies
// drop X-Kemu-Lease, a baseline without the apiserver's check (the client-side fence still works).
// usage: npm run bench -- fencing [--rounds 20] [--kinds controller-manager,scheduler] [--pods 150] [--strip-lease-header]
//        [--lease-duration 2s] [--renew-deadline 1500ms] [--retry-period 500ms] (--help lists the flags)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { R, type Deployment, type Node, type Pod } from '@kemu/api';
import { formatDuration } from '@kemu/base';
import { RestClient } from '@kemu/client';
import { startReplica } from '../test/apiserver/cluster.ts';
import type { ProxiedRequest } from '../test/chaos/counting-proxy.ts';
import { freezeRound, marks, steadyLeader, type FreezeRound } from '../test/chaos/freeze-round.ts';
import { LEADER_ELECTED, startProxied, type LeaderElectedKind, type ProxiedComponent } from '../test/chaos/proxied-component.ts';
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
    'strip-lease-header': { type: 'bool', default: false, usage: 'the proxies drop X-Kemu-Lease (a baseline without the apiserver check)' },
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

/** Gives the leader a round's work; returns which of its writes are that work. */
async function giveWork(kind: LeaderElectedKind, client: RestClient, round: number): Promise<(r: ProxiedRequest) => boolean> {
  if (kind === 'scheduler') {
    for (let i = 0; i < PODS; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, PODS - i) }, (_, k) => client.create<Pod>(R.pods, 'default', pod(`r${round}-${i + k}`, { round: String(round) }))));
    return (r) => r.path.endsWith('/binding');
  }
  const ns = `fencing-${round}`;
  await client.create(R.namespaces, undefined, { metadata: { name: ns } });
  const labels = { app: 'filler' };
  const d = { metadata: { name: 'filler' }, spec: { replicas: PODS, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: pod('', labels).spec } } };
  await client.create<Deployment>(R.deployments, ns, d as Deployment);
  return (r) => r.method === 'POST' && r.path.startsWith(`/api/v1/namespaces/${ns}/pods`);
}

interface KindResult {
  rounds: FreezeRound[];
  /** Replicas restarted because they had exited outside a round (a starved leader that lost its Lease). */
  unplanned: string[];
}

async function runKind(kind: LeaderElectedKind, url: string, client: RestClient, work: Work): Promise<KindResult> {
  const lease = LEADER_ELECTED[kind].lease;
  const prefix = kind === 'scheduler' ? 'sched' : 'kcm';
  const started: ProxiedComponent[] = [];
  for (const i of [0, 1]) {
    const c = await startProxied(kind, `${prefix}-${i}`, url, work.dir, leaderFlags, { stripLeaseHeader: flags['strip-lease-header'] });
    work.defer(() => c.stop());
    started.push(c);
  }
  const pair = [started[0]!, started[1]!] as const;
  const result: KindResult = { rounds: [], unplanned: [] };
  console.log(`\n${kind}: 2 replicas through counting proxies, Lease kube-system/${lease}, ${flags.rounds} rounds`);
  for (let i = 0; i < flags.rounds; i++) {
    const since = marks(pair);
    const isWork = await giveWork(kind, client, i);
    const steady = await steadyLeader(client, lease, pair, since, isWork, BUSY);
    result.unplanned.push(...steady.restarted);
    const { leader } = steady;
    const r = await freezeRound({ client, lease, name: leader.name, proc: leader.proc, proxy: leader.proxy });
    result.rounds.push(r);
    const byCode = new Map<string, number>();
    for (const [k, n] of r.answers) byCode.set(k.split(' ')[0] ?? '', (byCode.get(k.split(' ')[0] ?? '') ?? 0) + n);
    const answers = [...byCode].map(([code, n]) => `${n}× ${code}`).join(', ');
    console.log(
      `  round ${String(i + 1).padStart(2)} ${leader.name} → ${r.newHolder}: hand-over ${(r.handoverMs / 1000).toFixed(2)} s; ` +
        `held in flight ${r.held}, sent after waking ${r.afterWake} (${r.afterWake - r.afterWakeOther} to the Lease); accepted after the hand-over ${r.acceptedAfterHandover} (answers: ${answers || 'none'}); exit ${r.exit}` +
        (r.afterWake ? `; sent after waking: ${r.afterWakeWrites.join(', ')}` : '') +
        (steady.restarted.length ? ` (restarted first, after an unplanned hand-over: ${steady.restarted.join(', ')})` : ''),
    );
    await leader.restart();
  }
  return result;
}

function summary(kind: string, { rounds: rs, unplanned }: KindResult): string {
  const sum = (f: (r: FreezeRound) => number) => rs.reduce((a, r) => a + f(r), 0);
  const acceptedAfter = sum((r) => r.acceptedAfterHandover);
  const exits = rs.filter((r) => r.exit === 1).length;
  return (
    `  ${kind}: ${rs.length} rounds; writes accepted after the hand-over: ${acceptedAfter} (goal 0: ${acceptedAfter === 0 ? 'met' : 'MISSED'}), ` +
    `max ${Math.max(...rs.map((r) => r.acceptedAfterHandover))} in a round; writes held in flight at the freeze ${sum((r) => r.held)} (accepted ${sum((r) => r.heldAccepted)}); ` +
    `sent after waking ${sum((r) => r.afterWake)} (${sum((r) => r.afterWake - r.afterWakeOther)} of them Lease renewals; accepted ${sum((r) => r.afterWakeAccepted)}); old leader exit 1 in ${exits}/${rs.length}` +
    (unplanned.length ? `; ${unplanned.length} unplanned hand-overs outside the rounds (a starved leader lost its Lease)` : '')
  );
}

await runBench('fencing', async (work) => {
  if (flags['strip-lease-header']) console.log('baseline: the proxies drop X-Kemu-Lease, so the apiserver does not fence (the client-side fence still works)');
  console.log(`fencing: lease ${durations.lease}, renew deadline ${durations.renew}, retry ${durations.retry}; ${PODS} pods per round; kinds: ${kinds.join(', ') || '(none)'}`);
  const api = await startReplica(path.join(work.dir, 'state.db'), 'apiserver-0');
  const client = new RestClient({ server: api.url, qps: 1000, burst: 1000 });
  work.defer(() => client.close());
  const room = String(Math.max(110, PODS * flags.rounds));
  for (const n of ['fence-a', 'fence-b']) {
    const status = { capacity: { cpu: '1000', memory: '1000Gi', pods: room }, allocatable: { cpu: '1000', memory: '1000Gi', pods: room }, conditions: [{ type: 'Ready', status: 'True' }] };
    await client.create<Node>(R.nodes, undefined, { metadata: { name: n, labels: { 'kubernetes.io/hostname': n } }, status } as Node);
  }
  const results: [string, KindResult][] = [];
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
  if (!flags['strip-lease-header'] && results.some(([, k]) => k.rounds.some((r) => r.acceptedAfterHandover > 0))) throw new Error('a frozen leader had writes accepted after the hand-over');
});

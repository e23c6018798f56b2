// Leader fail-over benchmark: three kube-controller-manager (and kube-scheduler) replicas against one
// kube-apiserver; each round kills the Lease holder by pid (SIGKILL and SIGTERM alternately) and times how
// long until the Lease names another holder, then restarts the killed replica and waits for it to follow.
// Prints per-round times and, per signal, median and max against client-go's bounds, and whether the
// leader released the Lease (holderIdentity "") on SIGTERM: kube-scheduler does (ReleaseOnCancel),
// kube-controller-manager does not, as in Kubernetes, so its SIGTERM hand-over waits for the lease to
// expire like a SIGKILL. Defaults are Kubernetes' (15s/10s/2s).
// usage: npm run bench -- failover [--rounds 20] [--kinds controller-manager,scheduler]
//        [--lease-duration 15s] [--renew-deadline 10s] [--retry-period 2s] (--help lists the flags)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatDuration } from '@kemu/base';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { RestClient } from '@kemu/client';
import { startReplica } from '../test/apiserver/cluster.ts';
import { atLeast, benchFlags, oneOf } from './lib/flags.ts';
import { LeaseWatch, holderHost, type LeaseSeen } from './lib/lease-watch.ts';
import { runBench } from './lib/workdir.ts';

/** releases: whether the component releases its Lease on SIGTERM (client-go's ReleaseOnCancel) in Kubernetes. */
const KINDS = {
  'controller-manager': { bin: BIN.controllerManager, lease: 'kube-controller-manager', releases: false },
  scheduler: { bin: BIN.scheduler, lease: 'kube-scheduler', releases: true },
} as const;
type Kind = keyof typeof KINDS;
type Sig = 'SIGKILL' | 'SIGTERM';

const flags = benchFlags(
  'failover',
  {
    rounds: { type: 'int', default: 20, usage: 'rounds per kind, SIGKILL and SIGTERM of the Lease holder alternately' },
    kinds: { type: 'stringArray', default: Object.keys(KINDS).filter((k) => existsSync(KINDS[k as Kind].bin)), usage: 'components to measure, three replicas each' },
    'lease-duration': { type: 'duration', default: 15_000, usage: "the replicas' --leader-elect-lease-duration" },
    'renew-deadline': { type: 'duration', default: 10_000, usage: "the replicas' --leader-elect-renew-deadline" },
    'retry-period': { type: 'duration', default: 2_000, usage: "the replicas' --leader-elect-retry-period" },
  },
  (f) => atLeast(f, 1, ['rounds']) ?? oneOf(f, 'kinds', Object.keys(KINDS)),
);
const ROUNDS = flags.rounds;
const kinds = flags.kinds as Kind[];
const leaseMs = flags['lease-duration'];
const retryMs = flags['retry-period'];
const durations = { lease: formatDuration(leaseMs), renew: formatDuration(flags['renew-deadline']), retry: formatDuration(retryMs) };
/** SIGTERM with a release: the next retry (+1 s for the drain); without one: the lease's expiry, as SIGKILL. */
const goalMs = (kind: Kind, sig: Sig): number => (sig === 'SIGTERM' && KINDS[kind].releases ? retryMs + 1000 : leaseMs + retryMs);
const leaderFlags = [`--leader-elect-lease-duration=${durations.lease}`, `--leader-elect-renew-deadline=${durations.renew}`, `--leader-elect-retry-period=${durations.retry}`];

const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const FOLLOWING = 'attempting to acquire leader lease';

interface Round {
  sig: Sig;
  from: string;
  to: string;
  ms: number;
  /** ms from the signal to holderIdentity "" being seen, if it was. */
  releasedMs: number | undefined;
  exit: number | string;
}

/** Waits until the holder renewed `renewals` times (same holder, new renewTime) after `since`; returns the holder. */
async function stable(watch: LeaseWatch, since: number, renewals = 2): Promise<string> {
  const hit = await watch.until(
    `${renewals} renewals by one holder`,
    (s) => {
      if (!s.holder) return false;
      const times = new Set(watch.since(since).filter((x) => x.holder === s.holder).map((x) => x.renewTime));
      return times.size >= renewals;
    },
    since,
    leaseMs * 3 + retryMs * renewals * 3 + 30_000,
  );
  return hit.holder ?? '';
}

async function startReplicaOf(kind: Kind, url: string, host: string): Promise<Proc> {
  const p = startProcess(host, KINDS[kind].bin, [`--master=${url}`, `--hostname-override=${host}`, '--secure-port=0', ...leaderFlags]);
  await waitFor(`${host} following`, () => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`${host} exited: ${p.output().slice(-2000)}`);
    return p.output().includes(FOLLOWING);
  }, 60_000, 20);
  return p;
}

async function runKind(kind: Kind, url: string, client: RestClient): Promise<Round[]> {
  const watch = new LeaseWatch(client, 'kube-system', KINDS[kind].lease);
  const procs = new Map<string, Proc>();
  const rounds: Round[] = [];
  try {
    const hosts = [0, 1, 2].map((i) => `${kind}-${i}`);
    const t0 = performance.now();
    await Promise.all(hosts.map(async (h) => procs.set(h, await startReplicaOf(kind, url, h))));
    await stable(watch, t0);
    console.log(`\n${kind}: 3 replicas, Lease kube-system/${KINDS[kind].lease}, ${ROUNDS} rounds`);
    for (let i = 0; i < ROUNDS; i++) {
      const sig: Sig = i % 2 === 0 ? 'SIGKILL' : 'SIGTERM';
      const oldId = watch.current?.holder ?? '';
      const from = holderHost(oldId);
      const victim = procs.get(from);
      if (!victim) throw new Error(`Lease holder "${oldId}" is none of ${hosts.join(', ')}`);
      const start = performance.now();
      victim.child.kill(sig);
      const next = await watch.until(`a holder other than ${from}`, (s) => !!s.holder && s.holder !== oldId, start, leaseMs * 2 + retryMs * 4 + 30_000);
      const released = watch.since(start).find((s: LeaseSeen) => s.holder === '' && s.at <= next.at);
      const exit = await victim.exited;
      const r: Round = { sig, from, to: holderHost(next.holder), ms: next.at - start, releasedMs: released && released.at - start, exit };
      rounds.push(r);
      console.log(
        `  round ${String(i + 1).padStart(2)} ${sig} ${r.from} → ${r.to}: ${secs(r.ms)}` +
          (sig === 'SIGTERM' ? `  (released: ${r.releasedMs === undefined ? 'no' : `yes, after ${secs(r.releasedMs)}`}; exit ${r.exit})` : ''),
      );
      // Back to three replicas, the restarted one a follower, the new leader renewing steadily.
      procs.set(from, await startReplicaOf(kind, url, from));
      await stable(watch, performance.now());
    }
    return rounds;
  } finally {
    watch.stop();
    await Promise.all([...procs.values()].map((p) => p.kill('SIGKILL')));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

function summary(kind: Kind, rounds: Round[]): string[] {
  const out: string[] = [];
  for (const sig of ['SIGKILL', 'SIGTERM'] as const) {
    const rs = rounds.filter((r) => r.sig === sig);
    if (!rs.length) continue;
    const ms = rs.map((r) => r.ms);
    const max = Math.max(...ms);
    const goal = goalMs(kind, sig);
    const verdict = max <= goal ? 'within goal' : 'OVER GOAL';
    const within = ms.filter((x) => x <= goal).length;
    let line = `  ${kind} ${sig}: n=${rs.length} median ${secs(median(ms))}, max ${secs(max)} (goal ≤ ${secs(goal)}: ${verdict}, ${within}/${rs.length} rounds within)`;
    if (sig === 'SIGTERM') {
      const rel = rs.filter((r) => r.releasedMs !== undefined).length;
      const clean = rs.filter((r) => r.exit === 0).length;
      line += `; Lease released in ${rel}/${rs.length} (Kubernetes: ${KINDS[kind].releases ? 'always' : 'never'}), exit 0 in ${clean}/${rs.length}`;
      if (KINDS[kind].releases && rel < rs.length) line += `\n    FINDING: the ${kind} did not release its Lease on SIGTERM in ${rs.length - rel} of ${rs.length} rounds (followers waited for expiry)`;
      if (!KINDS[kind].releases && rel > 0) line += `\n    FINDING: the ${kind} released its Lease on SIGTERM in ${rel} of ${rs.length} rounds (Kubernetes' never does)`;
    }
    out.push(line);
  }
  return out;
}

await runBench('failover', async (work) => {
  let failed = 0;
  console.log(`leader fail-over: lease ${durations.lease}, renew deadline ${durations.renew}, retry ${durations.retry}; kinds: ${kinds.join(', ') || '(none)'}`);
  console.log(`goals: SIGKILL ≤ lease + retry = ${secs(leaseMs + retryMs)}; SIGTERM: scheduler (releases) ≤ retry + 1 s = ${secs(retryMs + 1000)}, controller-manager (no release) ≤ lease + retry`);
  // client-go's followers poll every retry × [1, 2.2] (wait.JitterUntil, JitterFactor 1.2, sliding) and count the
  // lease from when they *saw* the last renewal: after SIGKILL the hand-over is lease + (delay in seeing the last
  // renewal) + (delay to the first poll after expiry) − (age of that renewal), each delay up to 2.2 × retry.
  console.log(`  (client-go semantics: followers poll every ${secs(retryMs)}–${secs(retryMs * 2.2)}, so single rounds can reach lease + ${secs(retryMs * 4.4)} after SIGKILL or an unreleased SIGTERM and ${secs(retryMs * 2.2)} after a released one)`);
  const api = await startReplica(path.join(work.dir, 'state.db'), 'apiserver-0');
  const client = new RestClient({ server: api.url, qps: 1000, burst: 1000 });
  const results: [Kind, Round[]][] = [];
  for (const k of kinds) {
    try {
      results.push([k, await runKind(k, api.url, client)]);
    } catch (e) {
      failed++;
      console.error(`${k}: ${(e as Error).message}`);
    }
  }
  console.log('\nsummary:');
  for (const [k, rs] of results) for (const l of summary(k, rs)) console.log(l);
  if (failed) throw new Error(`${failed} of ${kinds.length} kinds failed`);
});

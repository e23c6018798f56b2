// One freeze/wake round against a leader-elected component that reaches the apiserver through its own
// CountingProxy, shared by test/chaos/fencing-chaos.test.ts and bench/fencing-bench.ts:
//   1. hold the leader's requests in the proxy until some writes are held (writes in flight at the freeze),
//   2. SIGSTOP the leader, 3. wait until the Lease names another holder (the hand-over),
//   4. let the held requests go on to the apiserver, 5. SIGCONT the leader and wait for it to exit
//      (it must notice the lost Lease), 6. count what the apiserver answered.
// "Accepted after the hand-over" counts the old leader's writes forwarded to the apiserver after the new
// holder was seen, answered 2xx: the writes held at the freeze and any it sent after waking.
import type { RestClient } from '@kemu/client';
import { waitFor, type Proc } from '@kemu/base/testing/processes';
import { leaseHolderName } from '../support/single-apiserver.ts';
import { accepted, isWrite, type CountingProxy, type ProxiedRequest } from './counting-proxy.ts';
import type { ProxiedComponent } from './proxied-component.ts';

export interface FreezeRound {
  /** ms from SIGSTOP until the Lease was seen with another holder. */
  handoverMs: number;
  /** The leader's writes held in the network at the freeze, and how many of them the apiserver accepted. */
  held: number;
  heldAccepted: number;
  /** Writes the old leader sent after SIGCONT (a fenced leader sends none), and how many were accepted. */
  afterWake: number;
  afterWakeAccepted: number;
  /**
   * Of those, the ones not to a Lease (renewal attempts go out by design; the Lease's resourceVersion fences
   * them): writes started before the freeze whose bytes had not left yet (e.g. waiting for a connection).
   */
  afterWakeOther: number;
  /** "<ms after SIGCONT> <status> <METHOD> <path>" for each write sent after waking. */
  afterWakeWrites: string[];
  /** All of the old leader's writes the apiserver accepted after the hand-over (the goal is 0). */
  acceptedAfterHandover: number;
  /** How the apiserver answered the old leader's writes after the hand-over: "409 POST /api/v1/…/binding" × n. */
  answers: Map<string, number>;
  /** The new holder's name ("<hostname>" part). */
  newHolder: string;
  /** The frozen process's exit (code or signal). */
  exit: number | string;
}

export interface FreezeRoundOptions {
  client: RestClient;
  /** kube-controller-manager or kube-scheduler (in kube-system). */
  lease: string;
  /** The leader's process and its proxy; its --hostname-override is `name`. */
  name: string;
  proc: Proc;
  proxy: CountingProxy;
  /** Freeze once this many writes are held (default 10), or after holdMs with at least one (default 500 ms). */
  minHeld?: number;
  holdMs?: number;
  timeoutMs?: number;
}

/** "/api/v1/namespaces/x/pods/p/binding?…" → "/api/v1/namespaces/*\/pods/*\/binding" (for grouping answers). */
function shape(path: string): string {
  return path.split('?')[0]!.replace(/\/namespaces\/[^/]+/, '/namespaces/*').replace(/^(\/apis?\/.*\/namespaces\/\*\/[^/]+)\/[^/]+/, '$1/*');
}

/** The leader exited (it lost its Lease by itself on a starved machine) before it could be frozen. */
export class LostBeforeFreeze extends Error {
  constructor(name: string) {
    super(`${name} lost its Lease and exited before the freeze`);
  }
}

export async function freezeRound(o: FreezeRoundOptions): Promise<FreezeRound> {
  const timeout = o.timeoutMs ?? 60_000;
  const pid = o.proc.child.pid;
  if (pid === undefined) throw new Error(`${o.name} has no pid`);
  const from = o.proxy.requests.length;
  const minHeld = o.minHeld ?? 10;
  const holdMs = o.holdMs ?? 500;
  const tHold = Date.now();
  o.proxy.hold();
  try {
    // Not much longer than holdMs: the Lease renewals are held too, and the leader must not lose it before the freeze.
    // A leader starved of CPU before the freeze loses its Lease on its own and exits: not the round under test.
    let exited = false;
    void o.proc.exited.then(() => (exited = true));
    await waitFor(`${o.name} writes held in flight`, () => {
      const n = o.proxy.heldWrites();
      return exited || n >= minHeld || (n > 0 && Date.now() - tHold >= holdMs);
    }, timeout, 2);
    if (exited) throw new LostBeforeFreeze(o.name);
  } catch (e) {
    o.proxy.release();
    if (e instanceof LostBeforeFreeze) throw e;
    throw new Error(`${String(e)}; ${o.name}'s log ends:\n${o.proc.output().slice(-3000)}`);
  }
  const tStop = Date.now();
  process.kill(pid, 'SIGSTOP');
  let newHolder: string;
  try {
    newHolder = await waitFor('a new Lease holder', async () => {
      const h = await leaseHolderName(o.client, o.lease);
      return h && h !== o.name ? h : undefined;
    }, timeout, 20);
  } catch (e) {
    process.kill(pid, 'SIGCONT');
    o.proxy.release();
    throw e;
  }
  const tHandover = Date.now();
  o.proxy.release();
  const tWake = Date.now();
  process.kill(pid, 'SIGCONT');
  const exit = await Promise.race([o.proc.exited, new Promise<string>((r) => setTimeout(() => r('still running'), timeout))]);
  await o.proxy.settled();

  const mine = o.proxy.requests.slice(from).filter(isWrite);
  const held = mine.filter((r) => r.held && r.receivedAt < tWake);
  const afterWake = mine.filter((r) => r.receivedAt >= tWake);
  const late = mine.filter((r) => (r.forwardedAt ?? 0) >= tHandover);
  const answers = new Map<string, number>();
  for (const r of late) {
    const k = `${r.status ?? '-'} ${r.method} ${shape(r.path)}`;
    answers.set(k, (answers.get(k) ?? 0) + 1);
  }
  const count = (rs: ProxiedRequest[]) => rs.filter(accepted).length;
  return {
    handoverMs: tHandover - tStop,
    held: held.length,
    heldAccepted: count(held),
    afterWake: afterWake.length,
    afterWakeAccepted: count(afterWake),
    afterWakeOther: afterWake.filter((r) => !r.path.includes('/leases/')).length,
    afterWakeWrites: afterWake.map((r) => `${r.receivedAt - tWake}ms ${r.status ?? '-'} ${r.method} ${shape(r.path)}`),
    acceptedAfterHandover: count(late),
    answers,
    newHolder,
    exit,
  };
}

export interface SteadyLeader {
  leader: ProxiedComponent;
  follower: ProxiedComponent;
  /** Replicas that had exited (e.g. lost the Lease on a starved machine) and were started again meanwhile. */
  restarted: string[];
}

/**
 * Waits until one replica of `pair` holds the Lease and has had `minWrites` of its writes that match `work`
 * accepted since `since` (each proxy's request count then), while the other one runs. A replica that exited
 * meanwhile (a leader that lost its Lease to a starved CPU exits 1) is started again, so an unplanned
 * hand-over costs time, not the round.
 */
export async function steadyLeader(
  client: RestClient,
  lease: string,
  pair: readonly [ProxiedComponent, ProxiedComponent],
  since: ReadonlyMap<ProxiedComponent, number>,
  work: (r: ProxiedRequest) => boolean,
  minWrites: number,
  timeoutMs = 60_000,
): Promise<SteadyLeader> {
  const restarted: string[] = [];
  // A restarted replica counts only its own writes: the Lease still names the exited process (same hostname)
  // until it expires, and the new process is a follower until then, though the dead one's writes were many.
  const from = new Map(since);
  const running = (c: ProxiedComponent) => c.proc.child.exitCode === null && c.proc.child.signalCode === null;
  const hit = await waitFor(`a ${lease} leader with ${minWrites} writes accepted`, async () => {
    for (const c of pair)
      if (!running(c)) {
        restarted.push(c.name);
        from.set(c, c.proxy.requests.length);
        await c.restart();
      }
    const holder = await leaseHolderName(client, lease);
    const leader = pair.find((c) => c.name === holder);
    if (!leader) return undefined;
    const n = leader.proxy.requests.slice(from.get(leader) ?? 0).filter((r) => isWrite(r) && work(r) && accepted(r)).length;
    return n >= minWrites ? leader : undefined;
  }, timeoutMs, 10).catch(async (e: unknown) => {
    const holder = await leaseHolderName(client, lease).catch(() => '?');
    throw new Error(`${String(e)} (holder now "${holder}")\n${pair.map((c) => describe(c, from.get(c) ?? 0)).join('\n')}`);
  });
  return { leader: hit, follower: pair[0] === hit ? pair[1] : pair[0], restarted };
}

/** A replica's state for a failure message: running or not, its requests since `from` by answer, its log's end. */
function describe(c: ProxiedComponent, from: number): string {
  const answers = new Map<string, number>();
  for (const r of c.proxy.requests.slice(from)) {
    const k = `${r.status ?? (r.forwardedAt === undefined ? 'held' : 'pending')} ${r.method} ${r.path.split('?')[0]}`;
    answers.set(k, (answers.get(k) ?? 0) + 1);
  }
  const top = [...answers].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, n]) => `  ${n}× ${k}`);
  const state = c.proc.child.exitCode ?? c.proc.child.signalCode ?? 'running';
  return `${c.name} (${String(state)}):\n${top.join('\n')}\n${c.proc.output().slice(-1500)}`;
}

/** Each replica's proxy request count now (the `since` of steadyLeader). */
export function marks(pair: readonly ProxiedComponent[]): Map<ProxiedComponent, number> {
  return new Map(pair.map((c) => [c, c.proxy.requests.length]));
}

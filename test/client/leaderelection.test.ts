// Three LeaderElector processes on a real apiserver: exactly one leader; SIGKILL → another once the lease
// ran out since the last renewal the followers watched (no earlier, and not a poll later); SIGTERM (release)
// → another at once; a restarted former leader stays a follower; leaseTransitions counts each change.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Lease } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { RestClient } from '@kemu/client';
import { startCluster, type Cluster, type Replica } from '../apiserver/cluster.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LEASE_MS = 2000;
const RENEW_MS = 1500;
const RETRY_MS = 300;

interface Child {
  name: string;
  proc: ChildProcess;
  identity: string;
  lines: { event: string; identity: string; t: number; who?: string }[];
}

let cluster: Cluster;
let client: RestClient;
const children: Child[] = [];

function startChild(name: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'elector-child.ts'), (cluster.replicas[0] as Replica).url, name, String(LEASE_MS), String(RENEW_MS), String(RETRY_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const c: Child = { name, proc, identity: '', lines: [] };
  let buf = '';
  proc.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = JSON.parse(buf.slice(0, nl)) as Child['lines'][number];
      buf = buf.slice(nl + 1);
      c.identity = line.identity;
      c.lines.push(line);
    }
  });
  children.push(c);
  return c;
}

function exited(c: Child): Promise<void> {
  return c.proc.exitCode !== null || c.proc.signalCode !== null ? Promise.resolve() : new Promise((r) => c.proc.once('exit', () => r()));
}

async function getLease(): Promise<Lease | undefined> {
  return client.get<Lease>(R.leases, 'kube-system', 'kemu-test-election').catch(() => undefined);
}

const leading = (c: Child) => c.lines.some((l) => l.event === 'started') && !c.lines.some((l) => l.event === 'stopped') && c.proc.exitCode === null && c.proc.signalCode === null;

beforeAll(async () => {
  cluster = await startCluster(1);
  client = new RestClient({ server: (cluster.replicas[0] as Replica).url, qps: -1 });
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await Promise.all(children.map(exited));
  await client?.close();
  await cluster?.stop();
});

describe('leader election across processes', () => {
  it('one leader; SIGKILL and SIGTERM hand over in time; a restarted leader stays a follower; transitions count', async () => {
    const cs = ['a', 'b', 'c'].map(startChild);
    const first = await waitFor('a leader', () => cs.find(leading), 30_000);
    const lease1 = await waitFor('lease', getLease);
    expect(lease1.spec?.holderIdentity).toBe(first.identity);
    expect(lease1.spec?.leaseTransitions).toBe(0);
    await waitFor('followers see the leader', () => cs.filter((c) => c !== first).every((c) => c.lines.some((l) => l.event === 'leader' && l.who === first.identity)), 30_000);
    expect(cs.filter(leading)).toHaveLength(1);

    // SIGKILL: no release; a follower takes over after the lease runs out on its clock.
    const killedAt = Date.now();
    first.proc.kill('SIGKILL');
    const second = await waitFor('a new leader', () => cs.find((c) => c !== first && leading(c)), 30_000);
    const killTakeover = (second.lines.find((l) => l.event === 'started')?.t ?? 0) - killedAt;
    console.log(`SIGKILL take-over: ${killTakeover} ms (lease ${LEASE_MS}, retry ${RETRY_MS})`);
    // The last renewal was at most one renew period before the kill; followers saw it as it was written.
    expect(killTakeover).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS - 500);
    expect(killTakeover).toBeLessThanOrEqual(LEASE_MS + 700);
    expect((await getLease())?.spec).toMatchObject({ holderIdentity: second.identity, leaseTransitions: 1 });

    // The former leader comes back (same host name, new identity) and stays a follower.
    const again = startChild('a');
    await waitFor('restarted sees the leader', () => again.lines.some((l) => l.event === 'leader' && l.who === second.identity), 30_000);
    expect(leading(again)).toBe(false);
    expect(cs.filter(leading).concat(leading(again) ? [again] : [])).toEqual([second]);

    // SIGTERM: released, so a follower takes over within about one retry period.
    const termAt = Date.now();
    second.proc.kill('SIGTERM');
    await exited(second);
    expect(second.proc.exitCode).toBe(0);
    const third = await waitFor('leader after SIGTERM', () => [...cs, again].find((c) => c !== first && c !== second && leading(c)), 30_000);
    const termTakeover = (third.lines.find((l) => l.event === 'started')?.t ?? 0) - termAt;
    console.log(`SIGTERM take-over: ${termTakeover} ms`);
    expect(termTakeover).toBeLessThan(LEASE_MS / 2);
    const last = await getLease();
    expect(last?.spec).toMatchObject({ holderIdentity: third.identity, leaseTransitions: 2 });
    expect([...cs, again].filter(leading)).toEqual([third]);
  }, 120_000);
});

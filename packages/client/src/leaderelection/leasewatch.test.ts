// The Lease follower under a role without list/watch on Leases (the cluster-autoscaler's Helm chart grants
// get/update only): it stops following after the first 403 and says so once, instead of retrying for ever.
import { describe, expect, it } from 'vitest';
import { StatusError, type Lease } from '@kemu/api';
import { createLogger, realClock } from '@kemu/base';
import type { RestClient } from '../rest.ts';
import { LeaseFollower } from './leasewatch.ts';

describe('LeaseFollower', () => {
  it('gives up on a 403 from the list: one attempt, one info line, no more requests', async () => {
    let lists = 0;
    const client = {
      list: async () => {
        lists++;
        throw new StatusError('Forbidden', 'leases.coordination.k8s.io is forbidden: User "system:serviceaccount:kube-system:cluster-autoscaler" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"', undefined, 403);
      },
    } as unknown as RestClient;
    const lines: string[] = [];
    const logger = createLogger('test', 0, {}, { destination: { write: (l: string) => lines.push(l) } });
    const seen: (Lease | undefined)[] = [];
    const stop = new AbortController();
    const done = new LeaseFollower(client, 'kube-system', 'cluster-autoscaler', (l) => seen.push(l), { clock: realClock, logger, backoffMs: 1, maxBackoffMs: 1 }).run(stop.signal);
    const ended = await Promise.race([done.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
    stop.abort();
    expect(ended).toBe(true);
    expect(lists).toBe(1);
    expect(seen).toEqual([]);
    expect(lines.filter((l) => l.includes('lease watch forbidden; following the Lease by polling only'))).toHaveLength(1);
  });

  it('keeps retrying other failures (a replica away) until it is stopped', async () => {
    let lists = 0;
    const client = {
      list: async () => {
        lists++;
        throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      },
    } as unknown as RestClient;
    const stop = new AbortController();
    const done = new LeaseFollower(client, 'kube-system', 'x', () => undefined, { clock: realClock, logger: createLogger('test', 0, {}, { destination: { write: () => 0 } }), backoffMs: 1, maxBackoffMs: 2 }).run(stop.signal);
    const deadline = Date.now() + 5_000;
    while (lists < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    await done;
    expect(lists).toBeGreaterThanOrEqual(5);
  });
});

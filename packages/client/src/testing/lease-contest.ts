// Test helper for the leader-election tests: a FakeApiserver for each test, the clients and run loops the
// test starts (aborted, then closed, after it), and the kube-controller-manager Lease they contend for.
import { afterEach, beforeEach } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import type { Lease } from '@kemu/api';
import { RestClient } from '../rest.ts';
import { leaderIdentity } from '../leaderelection/leaderelection.ts';
import { FakeApiserver } from './fake-apiserver.ts';

export const LEASES = '/apis/coordination.k8s.io/v1/leases';

export interface Contender {
  client: RestClient;
  namespace: string;
  name: string;
  identity: string;
}

export interface LeaseContest {
  /** This test's fake apiserver. */
  readonly fake: FakeApiserver;
  /** A candidate's part of a LeaderElector's config: its own client (its name as User-Agent, for
   * interceptors; no retries), the kube-controller-manager Lease, an identity from its name. */
  contender(name: string): Contender;
  /** Closes the client after the test. */
  closeAfter(client: RestClient): RestClient;
  /** An AbortController for a run loop, aborted after the test. */
  controller(): AbortController;
  /** The kube-system/kube-controller-manager Lease on the fake as it is now. */
  lease(): Lease | undefined;
}

/** Registers the per-test hooks; call it at the top of a test file. */
export function leaseContest(): LeaseContest {
  let fake: FakeApiserver | undefined;
  const clients: RestClient[] = [];
  const ctrls: AbortController[] = [];
  beforeEach(async () => {
    fake = await new FakeApiserver().start();
  });
  afterEach(async () => {
    for (const c of ctrls.splice(0)) c.abort();
    for (const c of clients.splice(0)) await c.close();
    await fake?.stop();
    fake = undefined;
  });
  const t: LeaseContest = {
    get fake() {
      if (!fake) throw new Error('no fake apiserver outside a test');
      return fake;
    },
    contender: (name) => ({
      client: t.closeAfter(new RestClient({ server: t.fake.url, qps: -1, userAgent: name }, { maxRetries: 0 })),
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity: leaderIdentity(name),
    }),
    closeAfter(client) {
      clients.push(client);
      return client;
    },
    controller() {
      const ctrl = new AbortController();
      ctrls.push(ctrl);
      return ctrl;
    },
    lease: () => t.fake.getObject(LEASES, 'kube-system', 'kube-controller-manager') as Lease | undefined,
  };
  return t;
}

/** waitFor for a condition on in-process state, polled every few milliseconds. */
export function until<T>(what: string, fn: () => T, ms = 10_000): Promise<NonNullable<T>> {
  return waitFor(what, fn, ms, 5);
}

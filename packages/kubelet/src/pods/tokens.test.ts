// The projected token's life on a node: one TokenRequest per serviceAccountToken source when the pod starts,
// bound to the pod; the next when the token is 80 % through its life (or 24 h old); nothing for pods without
// such volumes; nothing after the pod stopped; retries after a failure; none when TokenRequest is not served.
import { describe, expect, it } from 'vitest';
import { StatusError, type Pod } from '@kemu/api';
import { FakeClock, silentLogger } from '@kemu/base';
import type { KubeApi } from '../api.ts';
import { TimerQueue } from '../timers.ts';
import { ServiceAccountTokens, refreshAt } from './tokens.ts';

interface Call {
  ns: string | undefined;
  name: string;
  sub: string;
  body: { spec: Record<string, unknown> };
}

function setup(answer: (c: Call, now: number) => unknown) {
  const clock = new FakeClock();
  const timers = new TimerQueue(clock);
  const calls: Call[] = [];
  const client = {
    createSubresource: async (_r: unknown, ns: string | undefined, name: string, sub: string, body: unknown) => {
      const c = { ns, name, sub, body: body as Call['body'] };
      calls.push(c);
      return answer(c, clock.now());
    },
  } as unknown as KubeApi;
  const tokens = new ServiceAccountTokens({ client, timers, clock, logger: silentLogger(), random: () => 0 });
  const tick = async (ms: number) => {
    await clock.advance(ms);
    timers.runDue();
    await new Promise((r) => setImmediate(r));
  };
  return { clock, timers, calls, tokens, tick };
}

const issued = (c: Call, now: number) => ({
  spec: c.body.spec,
  status: { token: 'x', expirationTimestamp: new Date(now + Number(c.body.spec.expirationSeconds) * 1000).toISOString() },
});

function pod(volumes: unknown[]): Pod {
  return { metadata: { name: 'web', namespace: 'shop', uid: 'u-1' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'nginx' }], volumes } } as Pod;
}

const KUBE_API_ACCESS = {
  name: 'kube-api-access-abcde',
  projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] },
};

describe('projected ServiceAccount tokens', () => {
  it('asks TokenRequest for a token bound to the pod when it starts, and again at 80 % of its life', async () => {
    const { calls, tokens, tick, timers } = setup(issued);
    tokens.podStarted(pod([KUBE_API_ACCESS, { name: 'vault', projected: { sources: [{ serviceAccountToken: { audience: 'vault', expirationSeconds: 600, path: 't' } }] } }]));
    await tick(0);
    expect(calls.map((c) => [c.ns, c.name, c.sub])).toEqual([['shop', 'builder', 'token'], ['shop', 'builder', 'token']]);
    expect(calls[0]?.body).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'u-1' } },
    });
    expect(calls[1]?.body.spec).toMatchObject({ audiences: ['vault'], expirationSeconds: 600 });
    expect(timers.size()).toBe(2);
    await tick(480_000 - 1);
    expect(calls).toHaveLength(2);
    await tick(1);
    expect(calls).toHaveLength(3); // the 600 s token at 80 %
    tokens.podStopped('u-1');
    await tick(3600_000);
    expect(calls).toHaveLength(3);
    expect(timers.size()).toBe(0);
  });

  it('refreshes the kube-api-access token every 80 % of its 3607 s', async () => {
    const { calls, tokens, tick } = setup(issued);
    tokens.podStarted(pod([KUBE_API_ACCESS]));
    await tick(0);
    await tick(2885_600 - 1);
    expect(calls).toHaveLength(1);
    await tick(1);
    expect(calls).toHaveLength(2);
    await tick(2885_600);
    expect(calls).toHaveLength(3);
  });

  it('a pod without projected token volumes costs nothing', async () => {
    const { calls, tokens, tick, timers } = setup(issued);
    tokens.podStarted(pod([{ name: 'data', emptyDir: {} }]));
    await tick(0);
    expect(calls).toHaveLength(0);
    expect(tokens.size()).toBe(0);
    expect(timers.size()).toBe(0);
  });

  it('refreshes a long-lived token after 24 h', () => {
    const exp = 1_000_000_000 + 7 * 86400_000;
    expect(refreshAt(exp, 7 * 86400, 0)).toBe(1_000_000_000 + 86400_000);
    expect(refreshAt(exp, 7 * 86400, 10_000)).toBe(1_000_000_000 + 86400_000 - 10_000);
  });

  it('retries after a failure with back-off; gives up when TokenRequest is not served', async () => {
    let fail: StatusError | undefined = new StatusError('Forbidden', 'serviceaccounts "builder" is forbidden', undefined, 403);
    const { calls, tokens, tick } = setup((c, now) => {
      if (fail) throw fail;
      return issued(c, now);
    });
    tokens.podStarted(pod([KUBE_API_ACCESS]));
    await tick(0);
    await tick(2000);
    expect(calls).toHaveLength(2);
    await tick(4000);
    expect(calls).toHaveLength(3);
    fail = undefined;
    await tick(8000);
    expect(calls).toHaveLength(4);

    const other = setup(() => {
      throw new StatusError('NotFound', 'the server could not find the requested resource', undefined, 404);
    });
    other.tokens.podStarted(pod([KUBE_API_ACCESS]));
    await other.tick(0);
    await other.tick(600_000);
    expect(other.calls).toHaveLength(1);
    expect(other.timers.size()).toBe(0);
  });
});

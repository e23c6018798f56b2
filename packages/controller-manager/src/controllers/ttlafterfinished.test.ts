import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type Job } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { TTLAfterFinishedController } from './ttlafterfinished.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function job(name: string, ttl: number | undefined, finished: boolean, now: number): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: { ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }), template: { spec: { containers: [{ name: 'c' }] } } },
    status: finished ? { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: formatTime(now) }] } : {},
  };
}

describe('ttl-after-finished-controller', () => {
  it('deletes a finished Job ttlSecondsAfterFinished after it finished, in the foreground; keeps the others', async () => {
    const env = fakeContext();
    envs.push(env);
    const now = env.clock.now();
    for (const j of [job('done', 10, true, now), job('running', 10, false, now), job('keep', undefined, true, now)]) await env.api.create(R.jobs, 'default', j);
    const c = new TTLAfterFinishedController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    expect(env.api.calls.filter((x) => x.verb === 'delete')).toHaveLength(0);
    await env.clock.advance(10_000);
    await settle();
    const deletes = env.api.calls.filter((x) => x.verb === 'delete');
    expect(deletes.map((d) => d.name)).toEqual(['done']);
    expect(deletes[0]?.body).toMatchObject({ propagationPolicy: 'Foreground' });
  });
});

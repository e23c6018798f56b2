import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type Node, type Pod, type PodPhase } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { PodGCController } from './podgc.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function pod(name: string, nodeName: string | undefined, phase: PodPhase, created: number): Pod {
  return {
    metadata: { name, namespace: 'default', creationTimestamp: formatTime(created) },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'x' }] },
    status: { phase },
  };
}

describe('pod-garbage-collector', () => {
  it('deletes orphaned pods and the oldest terminated pods beyond the threshold', async () => {
    const env = fakeContext(['--terminated-pod-gc-threshold=2']);
    envs.push(env);
    const { api } = env;
    const t = 1_700_000_000_000;
    await api.create<Node>(R.nodes, undefined, { metadata: { name: 'alive' } });
    await api.create<Pod>(R.pods, 'default', pod('running', 'alive', 'Running', t));
    await api.create<Pod>(R.pods, 'default', pod('orphan', 'gone', 'Running', t));
    for (let i = 0; i < 4; i++) await api.create<Pod>(R.pods, 'default', pod(`done-${i}`, 'alive', 'Succeeded', t + i * 1000));
    const c = new PodGCController(env.ctx);
    env.informers.start(env.abort.signal);
    await settle();
    await c.gc();
    await settle();
    expect(api.all<Pod>(R.pods, 'default').map((p) => p.metadata.name).sort()).toEqual(['done-2', 'done-3', 'running']);
  });
});

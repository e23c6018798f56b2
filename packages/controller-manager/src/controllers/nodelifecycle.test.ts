import { afterEach, describe, expect, it } from 'vitest';
import { R, formatMicroTime, formatTime, type Lease, type Node, type Pod } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { NodeLifecycleController, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, cordonTaints, evictionTime } from './nodelifecycle.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function readyNode(name: string, now: number): Node {
  const t = formatTime(now);
  return {
    metadata: { name },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: t, lastTransitionTime: t }] },
  };
}

function pod(name: string, tolerations?: Pod['spec']['tolerations']): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }], ...(tolerations ? { tolerations } : {}) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

describe('evictionTime', () => {
  const taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' as const, timeAdded: formatTime(1_700_000_000_000) };
  it('is now without a toleration, later with tolerationSeconds, never with an unlimited one', () => {
    expect(evictionTime(pod('a'), [taint], 0)).toBe(0);
    expect(evictionTime(pod('b', [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]), [taint], 0)).toBe(1_700_000_300_000);
    expect(evictionTime(pod('c', [{ operator: 'Exists' }]), [taint], 0)).toBeUndefined();
  });
});

describe('node-lifecycle-controller', () => {
  it('marks a silent node Unknown, taints it, marks and evicts its pods; untaints it when it is back', async () => {
    const env = fakeContext(['--node-monitor-grace-period=40s', '--node-eviction-rate=1']);
    envs.push(env);
    const { api, clock } = env;
    await api.create<Node>(R.nodes, undefined, readyNode('n1', clock.now()));
    await api.create<Lease>(R.leases, 'kube-node-lease', { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { renewTime: formatMicroTime(clock.now()) } });
    await api.create<Pod>(R.pods, 'default', pod('plain'));
    await api.create<Pod>(R.pods, 'default', pod('tolerant', [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }]));
    await api.create<Pod>(R.pods, 'default', pod('forever', [{ operator: 'Exists' }]));
    const c = new NodeLifecycleController(env.ctx);
    env.informers.start(env.abort.signal);
    await settle();
    await c.monitor();
    expect((await api.get<Node>(R.nodes, undefined, 'n1')).spec?.taints ?? []).toEqual([]);

    await clock.advance(41_000);
    await c.monitor();
    await settle();
    const n = await api.get<Node>(R.nodes, undefined, 'n1');
    expect(n.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    expect(n.spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toEqual([`${TAINT_UNREACHABLE}:NoSchedule`, `${TAINT_UNREACHABLE}:NoExecute`]);
    expect((await api.get<Pod>(R.pods, 'default', 'forever')).status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('False');
    await c.monitor();
    await settle();
    const names = () => api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name).sort();
    expect(names()).toEqual(['forever', 'tolerant']);
    await clock.advance(61_000);
    await c.monitor();
    await settle();
    expect(names()).toEqual(['forever']);

    // The kubelet is back: Ready=True with a fresh heartbeat.
    await api.patch(R.nodes, undefined, 'n1', { status: readyNode('n1', clock.now()).status }, 'merge', { subresource: 'status' });
    await settle();
    await c.monitor();
    await settle();
    expect((await api.get<Node>(R.nodes, undefined, 'n1')).spec?.taints ?? []).toEqual([]);
  });

  it('taints a cordoned node unschedulable:NoSchedule at once and removes the taint on uncordon, leaving other taints alone', async () => {
    const env = fakeContext(['--node-monitor-period=1h']);
    envs.push(env);
    const { api, clock } = env;
    const other = { key: 'dedicated', value: 'db', effect: 'NoSchedule' as const };
    await api.create<Node>(R.nodes, undefined, { ...readyNode('n1', clock.now()), spec: { taints: [other] } });
    const c = new NodeLifecycleController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    expect((await api.get<Node>(R.nodes, undefined, 'n1')).spec?.taints).toEqual([other]);

    // kubectl cordon n1
    await api.patch(R.nodes, undefined, 'n1', { spec: { unschedulable: true } }, 'merge');
    await settle();
    const cordoned = await api.get<Node>(R.nodes, undefined, 'n1');
    expect(cordoned.spec?.taints).toEqual([other, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule', timeAdded: formatTime(clock.now()) }]);

    // kubectl uncordon n1 (kubectl sets unschedulable to null)
    await api.patch(R.nodes, undefined, 'n1', { spec: { unschedulable: null } }, 'merge');
    await settle();
    expect((await api.get<Node>(R.nodes, undefined, 'n1')).spec?.taints).toEqual([other]);
  });
});

describe('cordonTaints', () => {
  it('adds the taint once, keeps it while cordoned, removes only it', () => {
    const t = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' as const, timeAdded: formatTime(0) };
    expect(cordonTaints({ metadata: { name: 'a' }, spec: { unschedulable: true } }, 0)).toEqual([t]);
    expect(cordonTaints({ metadata: { name: 'a' }, spec: { unschedulable: true, taints: [t] } }, 5_000)).toBeUndefined();
    expect(cordonTaints({ metadata: { name: 'a' }, spec: { taints: [{ key: 'x', effect: 'NoExecute' }, t] } }, 0)).toEqual([{ key: 'x', effect: 'NoExecute' }]);
    expect(cordonTaints({ metadata: { name: 'a' }, spec: {} }, 0)).toBeUndefined();
  });
});

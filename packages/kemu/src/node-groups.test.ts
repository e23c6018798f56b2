import { describe, expect, it } from 'vitest';
import { NodeGroupCloud, groupKubeletArgs, parseNodeGroups } from './node-groups.ts';

// As the flag parser hands them over: split on commas.
const items = (...flags: string[]) => flags.flatMap((f) => f.split(','));

describe('--node-group', () => {
  it('re-assembles groups split on commas, list values included', () => {
    const [g, h] = parseNodeGroups(items('name=pool,min=1,max=5,cpu=4,memory=8Gi,labels=disk=ssd,zone=a,taints=dedicated=batch:NoSchedule', 'name=big,min=0,max=2'), 110);
    expect(g).toEqual({ name: 'pool', min: 1, max: 5, cpu: '4', memory: '8Gi', pods: 110, labels: { disk: 'ssd', zone: 'a' }, taints: ['dedicated=batch:NoSchedule'] });
    expect(h).toMatchObject({ name: 'big', min: 0, max: 2, cpu: '4', memory: '16Gi' });
    expect(groupKubeletArgs(g!)).toEqual([
      '--capacity-cpu=4',
      '--capacity-memory=8Gi',
      '--max-pods=110',
      '--node-labels=disk=ssd,zone=a,kemu.dev/node-group=pool',
      '--register-with-taints=dedicated=batch:NoSchedule',
    ]);
  });
  it('refuses what it cannot use, naming the group and key', () => {
    expect(() => parseNodeGroups(items('min=1,max=2'), 110)).toThrow('each group starts with name=<group>');
    expect(() => parseNodeGroups(items('name=pool,min=3,max=2'), 110)).toThrow('max (2) must be at least min (3)');
    expect(() => parseNodeGroups(items('name=pool,max=2'), 110)).toThrow('min must be a non-negative integer (required)');
    expect(() => parseNodeGroups(items('name=pool,min=1,max=2,cpu=lots'), 110)).toThrow('cpu "lots" is not a quantity');
    expect(() => parseNodeGroups(items('name=pool,min=1,max=2,flavour=big'), 110)).toThrow('unknown key "flavour"');
    expect(() => parseNodeGroups(items('name=pool,min=1,max=2,taints=x=y'), 110)).toThrow('taint "x=y" is not key[=value]:');
  });
});

describe('NodeGroupCloud (the lab as the autoscaler\'s cloud)', () => {
  const machines = () => {
    const started: string[] = [];
    const removed: string[] = [];
    return { started, removed, m: { start: async (n: string) => void started.push(n), remove: async (n: string) => void removed.push(n) } };
  };

  it('starts the min, grows within the max, deletes members above the min', async () => {
    const { started, removed, m } = machines();
    const cloud = new NodeGroupCloud(parseNodeGroups(items('name=pool,min=1,max=3'), 110), m);
    expect(await cloud.startMinimum()).toEqual(['pool-0']);
    expect(JSON.parse(await cloud.handle('pool', { op: 'increase', delta: '2' }))).toEqual({ target: 3, nodes: ['pool-0', 'pool-1', 'pool-2'] });
    await expect(cloud.handle('pool', { op: 'increase', delta: '1' })).rejects.toThrow('size increase too large - desired:4 max:3');
    expect(JSON.parse(await cloud.handle('pool', { op: 'delete', nodes: 'pool-1' }))).toEqual({ target: 2, nodes: ['pool-0', 'pool-2'] });
    await expect(cloud.handle('pool', { op: 'delete', nodes: 'pool-0,pool-2' })).rejects.toThrow('min size reached');
    await expect(cloud.handle('pool', { op: 'delete', nodes: 'worker-0' })).rejects.toThrow('node worker-0 does not belong to node group pool');
    await expect(cloud.handle('gpu', {})).rejects.toThrow('node group "gpu" not found (known: pool)');
    expect(started).toEqual(['pool-0', 'pool-1', 'pool-2']);
    expect(removed).toEqual(['pool-1']);
  });

  it('overlapping increases are serialized: the second sees the first one\'s size', async () => {
    const { m } = machines();
    const cloud = new NodeGroupCloud(parseNodeGroups(items('name=pool,min=0,max=1'), 110), m);
    const results = await Promise.allSettled([cloud.handle('pool', { op: 'increase', delta: '1' }), cloud.handle('pool', { op: 'increase', delta: '1' })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
  });
});

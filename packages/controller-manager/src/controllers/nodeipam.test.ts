import { afterEach, describe, expect, it } from 'vitest';
import { R, type Node } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { CIDRSet, NodeIpamController } from './nodeipam.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

describe('CIDRSet', () => {
  it('hands out subnets lowest first and reuses released ones', () => {
    const s = new CIDRSet('10.200.0.0/16', 24);
    expect(s.allocate()).toBe('10.200.0.0/24');
    expect(s.allocate()).toBe('10.200.1.0/24');
    s.release('10.200.0.0/24');
    expect(s.allocate()).toBe('10.200.0.0/24');
    const small = new CIDRSet('10.0.0.0/23', 24);
    small.allocate();
    small.allocate();
    expect(small.allocate()).toBeUndefined();
  });
});

describe('node-ipam-controller', () => {
  it('assigns podCIDRs, keeps existing ones, releases on delete', async () => {
    const env = fakeContext(['--allocate-node-cidrs', '--cluster-cidr=10.200.0.0/16']);
    envs.push(env);
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'old' }, spec: { podCIDR: '10.200.0.0/24', podCIDRs: ['10.200.0.0/24'] } });
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'a' } });
    const c = new NodeIpamController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    const a = await env.api.get<Node>(R.nodes, undefined, 'a');
    expect(a.spec?.podCIDR).toBe('10.200.1.0/24');
    expect(a.spec?.podCIDRs).toEqual(['10.200.1.0/24']);
    await env.api.delete(R.nodes, undefined, 'old');
    await settle();
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'b' } });
    await settle();
    expect((await env.api.get<Node>(R.nodes, undefined, 'b')).spec?.podCIDR).toBe('10.200.0.0/24');
  });

  it('does nothing without --allocate-node-cidrs', async () => {
    const env = fakeContext();
    envs.push(env);
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'a' } });
    const c = new NodeIpamController(env.ctx);
    env.informers.start(env.abort.signal);
    await c.run();
    await settle();
    expect((await env.api.get<Node>(R.nodes, undefined, 'a')).spec?.podCIDR).toBeUndefined();
  });
});

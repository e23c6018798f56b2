import { afterEach, describe, expect, it } from 'vitest';
import { R, type Node } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { NodeIpamController } from './nodeipam.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

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
    // Round-robin as Kubernetes' cidrset: the next subnet, not the one just released.
    expect((await env.api.get<Node>(R.nodes, undefined, 'b')).spec?.podCIDR).toBe('10.200.2.0/24');
  });

  it("gives each Node one IPv4 and one IPv6 range with seed 003's dual-stack flags, podCIDR the first", async () => {
    const env = fakeContext([
      '--allocate-node-cidrs=true',
      '--service-cluster-ip-range=10.96.0.0/12,fd00:1111::/112',
      '--cluster-cidr=172.218.0.0/12,fc00:2222::/112',
      '--node-cidr-mask-size-ipv4=24',
      '--node-cidr-mask-size-ipv6=120',
    ]);
    envs.push(env);
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'k8s-node01' } });
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'k8s-node02' } });
    const c = new NodeIpamController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    const specs = await Promise.all(['k8s-node01', 'k8s-node02'].map(async (n) => (await env.api.get<Node>(R.nodes, undefined, n)).spec));
    expect(specs).toEqual([
      { podCIDR: '172.208.0.0/24', podCIDRs: ['172.208.0.0/24', 'fc00:2222::/120'] },
      { podCIDR: '172.208.1.0/24', podCIDRs: ['172.208.1.0/24', 'fc00:2222::100/120'] },
    ]);
  });

  it('keeps the service range out of an overlapping cluster CIDR', async () => {
    const env = fakeContext(['--allocate-node-cidrs', '--cluster-cidr=10.96.0.0/23', '--service-cluster-ip-range=10.96.0.0/24']);
    envs.push(env);
    await env.api.create<Node>(R.nodes, undefined, { metadata: { name: 'a' } });
    const c = new NodeIpamController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    expect((await env.api.get<Node>(R.nodes, undefined, 'a')).spec?.podCIDRs).toEqual(['10.96.1.0/24']);
  });

  it('refuses --node-cidr-mask-size with a dual-stack --cluster-cidr, as Kubernetes', () => {
    const env = fakeContext(['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/16,fc00::/112', '--node-cidr-mask-size=24']);
    expect(() => new NodeIpamController(env.ctx)).toThrow('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
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

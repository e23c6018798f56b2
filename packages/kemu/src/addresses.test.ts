import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freeLabAddress } from '@kemu/base/testing/ports';
import { AddressError, labAddresses, parseLoopback } from './addresses.ts';
import { planTopology, type TopologyOptions } from './topology.ts';

describe('lab addresses', () => {
  it('gives each process its own address in the /24 of the balancer', () => {
    const a = labAddresses('127.0.0.1', { apiserver: 3, 'controller-manager': 3, scheduler: 3, worker: 3 });
    expect([0, 1, 2].map((i) => a.of('apiserver', i))).toEqual(['127.0.0.10', '127.0.0.11', '127.0.0.12']);
    expect(a.of('controller-manager', 1)).toBe('127.0.0.21');
    expect(a.of('scheduler', 2)).toBe('127.0.0.32');
    expect([0, 1, 2].map((i) => a.of('worker', i))).toEqual(['127.0.0.100', '127.0.0.101', '127.0.0.102']);
    expect(labAddresses('127.0.1.1').of('apiserver', 0)).toBe('127.0.1.10');
  });

  it.each([
    ['10.0.0.1', /want an address in 127.0.0.0\/8/],
    ['127.0.0', /not an IPv4 address/],
    ['127.0.0.300', /not an IPv4 address/],
    ['localhost', /not an IPv4 address/],
  ])('refuses --address %s', (addr, msg) => {
    expect(() => parseLoopback(addr)).toThrow(msg);
  });

  it('refuses a balancer address inside a range and more processes than a range holds', () => {
    expect(() => labAddresses('127.0.0.11')).toThrow(/are the apiserver addresses; use .1-.9/);
    expect(() => labAddresses('127.0.0.1', { apiserver: 11 })).toThrow(AddressError);
    expect(() => labAddresses('127.0.0.1', { worker: 156 })).toThrow(/at most 155 worker processes/);
  });
});

describe('planTopology', () => {
  const opts = (address: string, port: number): TopologyOptions => ({
    dataDir: '/tmp/x', address, port, apiservers: 3, controllerManagers: 2, schedulers: 2, workers: 2, kubeletBootstrap: false,
    leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, nodeMonitorGracePeriodMs: 50_000, nodeMonitorPeriodMs: 5_000, defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300,
    nodeStatusUpdateFrequencyMs: 10_000, nodeLeaseDurationSeconds: 40, maxPods: 110, imagePullDelayMs: 0, v: 0, loggingFormat: 'text',
  });

  it("puts each process on its own address with Kubernetes' port, the apiservers sharing 6443", async () => {
    const { address, port, block } = await freeLabAddress();
    const t = await planTopology(opts(address, port), new Set([`${address}:${port}`]));
    expect(t.apiservers.map((a) => `${a.address}:${a.ports['secure-port']}`)).toEqual([10, 11, 12].map((h) => `${block}.${h}:6443`));
    expect(t.apiservers[1]?.args).toEqual(expect.arrayContaining([`--bind-address=${block}.11`, `--advertise-address=${block}.11`, '--secure-port=6443', '--allow-privileged=true']));
    // HTTPS with the lab's PKI; every other component reaches the balancer with a kubeconfig of its own.
    expect(t.apiservers[1]?.args).toEqual(expect.arrayContaining(['--tls-cert-file=/tmp/x/pki/apiserver.pem', '--tls-private-key-file=/tmp/x/pki/apiserver-key.pem', '--client-ca-file=/tmp/x/pki/ca.pem']));
    expect(t.apiservers[1]?.healthUrl).toBe(`https://${block}.11:6443/readyz`);
    expect(t.controllerManagers[0]?.args).toContain('--kubeconfig=/tmp/x/controller-manager.kubeconfig');
    expect(t.workers[1]?.args).toContain('--kubeconfig=/tmp/x/kubelet-worker-1.kubeconfig');
    expect(t.controllerManagers.map((c) => `${c.address}:${c.ports['secure-port']}`)).toEqual([`${block}.20:10257`, `${block}.21:10257`]);
    expect(t.schedulers[0]?.args).toEqual(expect.arrayContaining(['--kubeconfig=/tmp/x/scheduler.kubeconfig', `--bind-address=${block}.30`, '--secure-port=10259']));
    expect(t.workers[1]?.args).toEqual(expect.arrayContaining([`--node-ip=${block}.101`, `--bind-address=${block}.101`, '--secure-port=10250']));
    // Its API port wants credentials: the supervisor probes the kubelet's plain-HTTP healthz port on its address.
    expect(t.workers[1]?.args).toEqual(expect.arrayContaining([`--healthz-bind-address=${block}.101`, '--healthz-port=10248']));
    expect(t.workers[1]?.healthUrl).toBe(`http://${block}.101:10248/healthz`);
    expect(t.workers[1]?.ports).toEqual({ 'secure-port': 10250, 'healthz-port': 10248 });
  });

  it('gives each apiserver the audit policy and its own audit log in the data dir', async () => {
    const { address, port } = await freeLabAddress();
    const t = await planTopology({ ...opts(address, port), auditPolicyFile: '/tmp/x/audit-policy.yaml' }, new Set([`${address}:${port}`]));
    expect(t.apiservers[2]?.args).toEqual(expect.arrayContaining(['--audit-policy-file=/tmp/x/audit-policy.yaml', '--audit-log-path=/tmp/x/logs/audit-apiserver-2.log']));
    const without = await planTopology(opts(address, port), new Set([`${address}:${port}`]));
    expect(without.apiservers[0]?.args.some((a) => a.startsWith('--audit'))).toBe(false);
  });

  it('moves the apiservers together to another shared port when 6443 is taken on one of their addresses', async () => {
    const { address, port, block } = await freeLabAddress();
    const squatter = net.createServer();
    await new Promise<void>((r) => squatter.listen(6443, `${block}.11`, () => r()));
    try {
      const t = await planTopology(opts(address, port), new Set());
      const ports = new Set(t.apiservers.map((a) => a.ports['secure-port']));
      expect(ports.size).toBe(1);
      expect([...ports][0]).not.toBe(6443);
    } finally {
      squatter.close();
    }
  });
});

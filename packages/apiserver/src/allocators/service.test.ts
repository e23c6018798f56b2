import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '@kemu/store';
import { StatusError } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { ServiceAllocator } from './service.ts';

const opts = { serviceClusterIPRange: '10.96.0.0/24', serviceNodePortRange: '30000-30002' };

let uids = 0;
/** A Service as the registry hands it to the allocator: with its uid already set. */
const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({
  metadata: { name, namespace: 'default', uid: `uid-${++uids}` },
  spec: { type: 'ClusterIP', ports: [{ port: 80 }], ...spec },
});

async function invalidMessage(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    expect((e as StatusError).code).toBe(422);
    return (e as StatusError).message;
  }
  throw new Error('expected a 422');
}

describe('ServiceAllocator', () => {
  it('hands out distinct cluster IPs, never the network, broadcast or first address', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const seen = new Set<string>();
    for (let i = 0; i < 253; i++) {
      const s = svc(`s${i}`, {});
      await a.allocateForCreate(s);
      const ip = (s.spec as { clusterIP: string }).clusterIP;
      expect(seen.has(ip)).toBe(false);
      seen.add(ip);
      expect((s.spec as { clusterIPs: string[] }).clusterIPs).toEqual([ip]);
    }
    expect(seen.has('10.96.0.0')).toBe(false);
    expect(seen.has('10.96.0.1')).toBe(false);
    expect(seen.has('10.96.0.255')).toBe(false);
    await expect(a.allocateForCreate(svc('full', {}))).rejects.toThrow(/range is full/);
  });

  it('gives the first address on request (the kubernetes Service) and refuses taken or out-of-range IPs', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const k = svc('kubernetes', { clusterIP: '10.96.0.1' });
    await a.allocateForCreate(k);
    expect((k.spec as { clusterIP: string }).clusterIP).toBe('10.96.0.1');
    expect(await invalidMessage(a.allocateForCreate(svc('x', { clusterIP: '10.96.0.1' })))).toBe(
      'Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    expect(await invalidMessage(a.allocateForCreate(svc('y', { clusterIP: '10.0.0.5' })))).toBe(
      'Service "y" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24',
    );
    // Another create of the same name (another uid) neither gets the IP nor frees it.
    await expect(a.allocateForCreate(svc('kubernetes', { clusterIP: '10.96.0.1' }))).rejects.toThrow(/already allocated/);
    // Allocating again for the same Service (same uid) reuses its claim, and undoing that keeps it.
    const again = await a.allocateForCreate({ ...structuredClone(k), spec: { type: 'ClusterIP', clusterIP: '10.96.0.1' } });
    await again.rollback();
    expect(await invalidMessage(a.allocateForCreate(svc('z', { clusterIP: '10.96.0.1' })))).toMatch(/already allocated/);
  });

  it('skips headless and ExternalName services', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const h = svc('h', { clusterIP: 'None' });
    await a.allocateForCreate(h);
    expect((h.spec as { clusterIP: string }).clusterIP).toBe('None');
    const e = svc('e', { type: 'ExternalName', externalName: 'x.example.com' });
    await a.allocateForCreate(e);
    expect((e.spec as Record<string, unknown>).clusterIP).toBeUndefined();
  });

  it('allocates node ports, checks requested ones, releases on delete and rollback', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const s1 = svc('np1', { type: 'NodePort', ports: [{ port: 80 }, { port: 443, nodePort: 30000 }] });
    await a.allocateForCreate(s1);
    expect((s1.spec as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort)).toEqual([30001, 30000]);
    expect(await invalidMessage(a.allocateForCreate(svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] })))).toBe(
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30000: provided port is already allocated',
    );
    expect(await invalidMessage(a.allocateForCreate(svc('np3', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] })))).toBe(
      'Service "np3" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-30002',
    );
    const s4 = svc('np4', { type: 'NodePort', ports: [{ port: 80 }] });
    const txn = await a.allocateForCreate(s4);
    expect((s4.spec as { ports: { nodePort: number }[] }).ports[0]?.nodePort).toBe(30002);
    await expect(a.allocateForCreate(svc('np5', { type: 'NodePort', ports: [{ port: 80 }] }))).rejects.toThrow(/range is full/);
    await txn.rollback();
    await a.release(s1);
    const s6 = svc('np6', { type: 'NodePort', ports: [{ port: 1 }, { port: 2 }, { port: 3 }] });
    await a.allocateForCreate(s6);
    expect((s6.spec as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort).sort()).toEqual([30000, 30001, 30002]);
  });

  it('a LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort from the node port range, released on delete and when no longer needed', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const lb = svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] });
    await a.allocateForCreate(lb);
    expect(lb.spec).toMatchObject({ ports: [{ nodePort: 30000 }], healthCheckNodePort: 30001 });
    const cluster = svc('c', { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', ports: [{ port: 80 }] });
    await a.allocateForCreate(cluster);
    expect(cluster.spec).toMatchObject({ ports: [{ nodePort: 30002 }] });
    expect((cluster.spec as Record<string, unknown>).healthCheckNodePort).toBeUndefined();
    await a.release(cluster);
    await expect(a.allocateForCreate(svc('taken', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001, ports: [{ port: 80 }] }))).rejects.toThrow(
      'Internal error occurred: failed to allocate requested HealthCheck NodePort 30001: provided port is already allocated',
    );
    // Local → Cluster (the strategy has dropped the field): the port is free again after the commit.
    const next = structuredClone(lb);
    (next.spec as Record<string, unknown>).externalTrafficPolicy = 'Cluster';
    delete (next.spec as Record<string, unknown>).healthCheckNodePort;
    await (await a.allocateForUpdate(next, lb)).commit();
    const again = svc('again', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001, ports: [{ port: 80, nodePort: 30002 }] });
    await a.allocateForCreate(again);
    expect(again.spec).toMatchObject({ healthCheckNodePort: 30001 });
    // Cluster → Local on update claims one.
    await a.release(again);
    const local = structuredClone(next);
    (local.spec as Record<string, unknown>).externalTrafficPolicy = 'Local';
    await (await a.allocateForUpdate(local, next)).commit();
    expect((local.spec as Record<string, unknown>).healthCheckNodePort).toBe(30001);
  });

  it('update: type change to NodePort claims ports, back to ClusterIP releases them on commit', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const old = svc('u', {});
    await a.allocateForCreate(old);
    const np = structuredClone(old);
    (np.spec as Record<string, unknown>).type = 'NodePort';
    await (await a.allocateForUpdate(np, old)).commit();
    const port = (np.spec as { ports: { nodePort: number }[] }).ports[0]?.nodePort;
    expect(port).toBe(30000);
    const back = structuredClone(np);
    (back.spec as Record<string, unknown>).type = 'ClusterIP';
    await (await a.allocateForUpdate(back, np)).commit();
    expect((back.spec as { ports: Record<string, unknown>[] }).ports[0]?.nodePort).toBeUndefined();
    const other = svc('o', { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] });
    await a.allocateForCreate(other);
  });

  it('replicas racing on one store never share an IP', async () => {
    const store = new MemoryBackend();
    const replicas = [new ServiceAllocator(store, opts), new ServiceAllocator(store, opts), new ServiceAllocator(store, opts)];
    const services = Array.from({ length: 60 }, (_, i) => svc(`r${i}`, {}));
    await Promise.all(services.map((s, i) => replicas[i % 3]!.allocateForCreate(s)));
    const ips = services.map((s) => (s.spec as { clusterIP: string }).clusterIP);
    expect(new Set(ips).size).toBe(60);
  });

  it('dry run checks without claiming', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    await a.allocateForCreate(svc('d', { clusterIP: '10.96.0.50' }), { dryRun: true });
    await a.allocateForCreate(svc('d2', { clusterIP: '10.96.0.50' }));
  });
});

describe('ServiceAllocator ownership', () => {
  it('a claim whose Service never got stored is reclaimed only after the grace period', async () => {
    let now = 1_000_000;
    const store = new MemoryBackend();
    const a = new ServiceAllocator(store, { ...opts, leakGraceMs: 60_000, now: () => now });
    // A create that claimed the IP and then died before storing its Service (nothing rolled back).
    await a.allocateForCreate(svc('crashed', { clusterIP: '10.96.0.9' }));
    expect(await invalidMessage(a.allocateForCreate(svc('retry', { clusterIP: '10.96.0.9' })))).toMatch(/already allocated/);
    now += 61_000;
    const retry = svc('retry', { clusterIP: '10.96.0.9' });
    await a.allocateForCreate(retry);
    expect((retry.spec as { clusterIP: string }).clusterIP).toBe('10.96.0.9');
    const kv = await store.get('/registry/allocations/serviceips/10.96.0.9');
    expect(JSON.parse(kv?.value ?? '{}')).toMatchObject({ name: 'retry', uid: retry.metadata.uid });
  });

  it('releasing a Service frees only what still names it', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const first = svc('s', { clusterIP: '10.96.0.20' });
    await a.allocateForCreate(first);
    // A stale copy of another Service that claims the same IP (e.g. a replayed delete) frees nothing.
    await a.release({ ...svc('other', { clusterIP: '10.96.0.20' }) });
    expect(await invalidMessage(a.allocateForCreate(svc('third', { clusterIP: '10.96.0.20' })))).toMatch(/already allocated/);
    await a.release(first);
    await a.allocateForCreate(svc('third', { clusterIP: '10.96.0.20' }));
  });
});

describe('ServiceAllocator on a dual-stack cluster (10.96.0.0/24,fd00:1111::/112)', () => {
  const dual = { serviceClusterIPRange: '10.96.0.0/24,fd00:1111::/112', serviceNodePortRange: '30000-30002' };
  const spec = (s: KubeObject) => s.spec as { clusterIP: string; clusterIPs: string[]; ipFamilies: string[]; ipFamilyPolicy: string };

  it('RequireDualStack and PreferDualStack get one address per family, primary first; SingleStack one', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), dual);
    for (const policy of ['RequireDualStack', 'PreferDualStack']) {
      const s = svc(policy.toLowerCase(), { ipFamilyPolicy: policy });
      await a.allocateForCreate(s);
      expect(spec(s).ipFamilies).toEqual(['IPv4', 'IPv6']);
      expect(spec(s).clusterIPs).toHaveLength(2);
      expect(spec(s).clusterIP).toBe(spec(s).clusterIPs[0]);
      expect(spec(s).clusterIPs[0]).toMatch(/^10\.96\.0\./);
      expect(spec(s).clusterIPs[1]).toMatch(/^fd00:1111::/);
    }
    const single = svc('single', {});
    await a.allocateForCreate(single);
    expect(spec(single)).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    expect(spec(single).clusterIPs).toHaveLength(1);
    const v6first = svc('v6first', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6'] });
    await a.allocateForCreate(v6first);
    expect(spec(v6first).ipFamilies).toEqual(['IPv6', 'IPv4']);
    expect(spec(v6first).clusterIP).toMatch(/^fd00:1111::/);
  });

  it('infers the family of a requested IPv6 address and checks it against the IPv6 range', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), dual);
    const s = svc('v6', { clusterIP: 'fd00:1111::10' });
    await a.allocateForCreate(s);
    expect(spec(s)).toMatchObject({ clusterIPs: ['fd00:1111::10'], ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' });
    expect(await invalidMessage(a.allocateForCreate(svc('out', { clusterIP: 'fd00:2222::10' })))).toBe(
      'Service "out" is invalid: spec.clusterIPs: Invalid value: []string{"fd00:2222::10"}: failed to allocate IP fd00:2222::10: the provided IP (fd00:2222::10) is not in the valid range. The range of valid IPs is fd00:1111::/112',
    );
  });

  it('one address, one claim, however it is written (IPv6 zeros, IPv4-mapped)', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), dual);
    await a.allocateForCreate(svc('a', { clusterIP: 'fd00:1111::5' }));
    expect(await invalidMessage(a.allocateForCreate(svc('b', { clusterIP: 'fd00:1111:0:0::05' })))).toMatch(/provided IP is already allocated$/);
    await a.allocateForCreate(svc('c', { clusterIP: '10.96.0.8' }));
    expect(await invalidMessage(a.allocateForCreate(svc('d', { clusterIP: '::ffff:10.96.0.8' })))).toMatch(/provided IP is already allocated$/);
  });

  it('an update keeps a dual-stack Service\'s addresses after the cluster lost its IPv6 range', async () => {
    const store = new MemoryBackend();
    const old = svc('kept', { ipFamilyPolicy: 'PreferDualStack' });
    await new ServiceAllocator(store, dual).allocateForCreate(old);
    const single = new ServiceAllocator(store, opts);
    const next = structuredClone(old);
    (next.spec as { ports: unknown[] }).ports = [{ port: 81 }];
    await (await single.allocateForUpdate(next, old)).commit();
    expect(spec(next).clusterIPs).toEqual(spec(old).clusterIPs);
  });

  it('upgrades to dual-stack on update, and a SingleStack downgrade releases the secondary', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), dual);
    const old = svc('web', {});
    await a.allocateForCreate(old);
    const up = structuredClone(old);
    Object.assign(up.spec as object, { ipFamilyPolicy: 'RequireDualStack' });
    await (await a.allocateForUpdate(up, old)).commit();
    expect(spec(up).clusterIPs).toHaveLength(2);
    expect(spec(up).clusterIPs[0]).toBe(spec(old).clusterIP);
    const v6 = spec(up).clusterIPs[1] as string;
    const down = structuredClone(up);
    Object.assign(down.spec as object, { ipFamilyPolicy: 'SingleStack' });
    await (await a.allocateForUpdate(down, up)).commit();
    expect(spec(down)).toMatchObject({ clusterIPs: [spec(old).clusterIP], ipFamilies: ['IPv4'] });
    await a.allocateForCreate(svc('reuse', { clusterIP: v6 })); // free again
  });
});

describe('ServiceAllocator on a single-stack cluster', () => {
  it('refuses dual-stack demands with Kubernetes\' words; PreferDualStack stays single', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    expect(await invalidMessage(a.allocateForCreate(svc('req', { ipFamilyPolicy: 'RequireDualStack' })))).toBe(
      'Service "req" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
    expect(await invalidMessage(a.allocateForCreate(svc('v6', { ipFamilies: ['IPv6'] })))).toBe(
      'Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster',
    );
    expect(await invalidMessage(a.allocateForCreate(svc('v6ip', { clusterIP: 'fd00::5' })))).toBe(
      'Service "v6ip" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster',
    );
    const prefer = svc('prefer', { ipFamilyPolicy: 'PreferDualStack' });
    await a.allocateForCreate(prefer);
    expect(prefer.spec).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' });
    expect((prefer.spec as { clusterIPs: string[] }).clusterIPs).toHaveLength(1);
  });

  it('a headless Service without selector defaults to RequireDualStack and names both families, even here', async () => {
    const a = new ServiceAllocator(new MemoryBackend(), opts);
    const h = svc('headless', { clusterIP: 'None' });
    await a.allocateForCreate(h);
    expect(h.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    const sel = svc('headless-sel', { clusterIP: 'None', selector: { app: 'x' } });
    await a.allocateForCreate(sel);
    expect(sel.spec).toMatchObject({ clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  });
});

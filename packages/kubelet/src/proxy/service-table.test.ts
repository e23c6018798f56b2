import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Service } from '@kemu/api';
import { ServiceTable } from './service-table.ts';

const svc = (name: string, ns: string, clusterIP: string, ports = [{ name: 'http', port: 80, protocol: 'TCP' as const }]): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: ns },
  spec: { clusterIP, clusterIPs: clusterIP === 'None' ? ['None'] : [clusterIP], ports },
});

const slice = (name: string, ns: string, service: string, eps: { ip: string; pod: string; ready?: boolean }[], port = { name: 'http', port: 8080 }): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4',
  ports: [port],
  endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: e.ready === undefined ? {} : { ready: e.ready }, targetRef: { kind: 'Pod', namespace: ns, name: e.pod }, nodeName: 'w-0' })),
});

describe('ServiceTable', () => {
  const t = new ServiceTable();
  t.upsertService(svc('web', 'default', '10.96.0.20'));
  t.upsertService(svc('web', 'shop', '10.96.0.30'));
  t.upsertService(svc('db', 'shop', 'None'));
  t.upsertSlice(slice('web-abc', 'default', 'web', [{ ip: '10.244.0.5', pod: 'web-1' }, { ip: '10.244.0.6', pod: 'web-2', ready: true }, { ip: '10.244.0.7', pod: 'web-3', ready: false }]));
  t.upsertSlice(slice('db-x', 'shop', 'db', [{ ip: '10.244.1.9', pod: 'db-0' }]));

  it('resolves names as CoreDNS with the pod namespace search path, and ClusterIPs', () => {
    const ip = (host: string, ns: string) => {
      const d = t.resolve(host, ns);
      return d?.address;
    };
    expect(ip('web', 'default')).toBe('10.96.0.20');
    expect(ip('web', 'shop')).toBe('10.96.0.30');
    expect(ip('web.shop', 'default')).toBe('10.96.0.30');
    expect(ip('web.shop.svc', 'default')).toBe('10.96.0.30');
    expect(ip('web.shop.svc.cluster.local', 'default')).toBe('10.96.0.30');
    expect(ip('WEB.default.svc.cluster.local.', 'shop')).toBe('10.96.0.20');
    expect(ip('10.96.0.20', 'shop')).toBe('10.96.0.20');
    expect(ip('nosuch', 'default')).toBeUndefined();
    expect(ip('web.nosuch', 'default')).toBeUndefined();
    expect(ip('10.96.0.99', 'default')).toBeUndefined();
    // Headless: the endpoint's own address.
    expect(t.resolve('db', 'shop')).toMatchObject({ kind: 'endpoint', address: '10.244.1.9', endpoint: { pod: 'db-0' } });
  });

  it('a kube-dns Service (the lab\'s CoreDNS addon) is one more Service: names still resolve here, not through it', () => {
    const withDns = new ServiceTable();
    withDns.upsertService(svc('web', 'default', '10.96.0.20'));
    const dns: Service = { ...svc('kube-dns', 'kube-system', '10.96.0.10'), spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153, protocol: 'TCP' },
    ] } };
    withDns.upsertService(dns);
    expect(withDns.resolve('web', 'default')?.address).toBe('10.96.0.20');
    expect(withDns.resolve('kube-dns.kube-system', 'default')?.address).toBe('10.96.0.10');
    // TCP traffic to 10.96.0.10:53 goes to the dns-tcp port (UDP is not carried by the emulated data plane).
    expect(withDns.servicePort(dns, 53)?.name).toBe('dns-tcp');
  });

  it('balances over ready endpoints with the port of the Service port\'s name, in turn', () => {
    const s = t.allServices().find((x) => x.metadata.namespace === 'default') as Service;
    const sp = t.servicePort(s, 80);
    expect(sp?.name).toBe('http');
    expect(t.servicePort(s, 81)).toBeUndefined();
    const eps = t.readyEndpoints(s, sp);
    expect(eps.map((e) => `${e.pod}@${e.ip}:${e.port}`)).toEqual(['web-1@10.244.0.5:8080', 'web-2@10.244.0.6:8080']);
    expect([0, 1, 2, 3].map(() => t.turn('k', 2))).toEqual([0, 1, 0, 1]);
  });

  it('follows slice updates and deletions, and a re-list drops what vanished', () => {
    const s = t.allServices().find((x) => x.metadata.namespace === 'default') as Service;
    t.upsertSlice(slice('web-abc', 'default', 'web', [{ ip: '10.244.0.5', pod: 'web-1' }]));
    expect(t.readyEndpoints(s, t.servicePort(s, 80)).map((e) => e.pod)).toEqual(['web-1']);
    t.keepSlices(new Set(['shop/db-x']));
    expect(t.readyEndpoints(s, t.servicePort(s, 80))).toEqual([]);
    t.keepServices(new Set(['shop/web', 'shop/db']));
    expect(t.resolve('web', 'default')).toBeUndefined();
    expect(t.resolve('10.96.0.20', 'default')).toBeUndefined();
  });
});

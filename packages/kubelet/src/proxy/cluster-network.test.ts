import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Pod, Service } from '@kemu/api';
import { realClock } from '@kemu/base';
import type { LoggedPod } from '../server/container-logs.ts';
import { drive } from '../streams/driver.ts';
import { ShellSession } from '../shell/interpreter.ts';
import { ClusterNetwork } from './cluster-network.ts';
import { ServiceTable } from './service-table.ts';
import { PodTraffic } from './traffic.ts';

function nginxPod(name: string, ip: string): LoggedPod {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `u-${name}` }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.3', ports: [{ containerPort: 80 }] }] }, status: { podIP: ip } } as Pod;
  return { current: pod, lifecycle: { containers: [{ name: 'nginx', state: { kind: 'running' } }] } } as unknown as LoggedPod;
}

const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.20', ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] } };
const slice = (pods: string[], notReady: string[] = []): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  ports: [{ name: '', port: 80, protocol: 'TCP' }],
  endpoints: pods.map((p, i) => ({ addresses: [`10.244.0.${10 + i}`], conditions: { ready: !notReady.includes(p) }, targetRef: { kind: 'Pod', namespace: 'default', name: p } })),
});

function setup() {
  const pods = new Map([['web-a', nginxPod('web-a', '10.244.0.10')], ['web-b', nginxPod('web-b', '10.244.0.11')], ['client', nginxPod('client', '10.244.0.99')]]);
  const table = new ServiceTable();
  table.upsertService(service);
  table.upsertSlice(slice(['web-a', 'web-b']));
  const traffic = new PodTraffic();
  const net = new ClusterNetwork({ table, traffic, clock: realClock, findPod: (ns, n) => (ns === 'default' ? pods.get(n) : undefined) });
  return { table, traffic, shell: net.forPod({ namespace: 'default', name: 'client', ip: '10.244.0.99' }) };
}

const get = (host: string, port = 80) => ({ method: 'GET', host, port, path: '/', headers: { Host: host } });

describe('ClusterNetwork', () => {
  it('a Service name reaches nginx on its endpoints in turn, and each request is counted for the pod that served it', async () => {
    const { shell, traffic } = setup();
    for (let i = 0; i < 4; i++) {
      const r = await shell.request(get(i % 2 ? 'web.default.svc.cluster.local' : 'web'));
      expect(r).toMatchObject({ kind: 'response', status: 200, address: '10.96.0.20' });
      if (r.kind === 'response') expect(r.body).toContain('<title>Welcome to nginx!</title>');
    }
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([2, 2]);
    traffic.prune((_ns, pod) => pod !== 'web-b');
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([2, 0]);
  });

  it('endpoints follow the slices: NotReady and removed pods get no traffic, none left is refused', async () => {
    const { shell, traffic, table } = setup();
    table.upsertSlice(slice(['web-a', 'web-b'], ['web-b']));
    for (let i = 0; i < 3; i++) await shell.request(get('10.96.0.20'));
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([3, 0]);
    table.upsertSlice(slice([]));
    expect(await shell.request(get('web'))).toEqual({ kind: 'error', error: 'refused', address: '10.96.0.20' });
    expect(await shell.request(get('web', 8080))).toEqual({ kind: 'error', error: 'refused', address: '10.96.0.20' });
    expect(await shell.request(get('nosuch'))).toEqual({ kind: 'error', error: 'unknown-host' });
  });

  it('localhost is the client pod itself; a port nothing listens on is refused', async () => {
    const { shell, traffic } = setup();
    expect(await shell.request(get('localhost'))).toMatchObject({ kind: 'response', status: 200 });
    expect(traffic.count('default', 'client')).toBe(1);
    expect(await shell.request(get('localhost', 81))).toEqual({ kind: 'error', error: 'refused', address: '127.0.0.1' });
  });

  it('sessionAffinity ClientIP: a client keeps its endpoint until timeoutSeconds pass idle or the endpoint goes', async () => {
    let now = 1_000_000;
    const clock = { now: () => now } as typeof realClock;
    const pods = new Map([['web-a', nginxPod('web-a', '10.244.0.10')], ['web-b', nginxPod('web-b', '10.244.0.11')]]);
    const table = new ServiceTable();
    table.upsertService({ ...service, spec: { ...service.spec, sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } } });
    table.upsertSlice(slice(['web-a', 'web-b']));
    const traffic = new PodTraffic();
    const net = new ClusterNetwork({ table, traffic, clock, findPod: (ns, n) => (ns === 'default' ? pods.get(n) : undefined) });
    const one = net.forPod({ namespace: 'default', name: 'c1', ip: '10.244.0.98' });
    const two = net.forPod({ namespace: 'default', name: 'c2', ip: '10.244.0.99' });
    for (let i = 0; i < 3; i++) {
      await one.request(get('web'));
      now += 50_000;
    }
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([3, 0]);
    // Another client is balanced on its own, and keeps what it got.
    await two.request(get('web'));
    await two.request(get('web'));
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([3, 2]);
    // Idle past the timeout: chosen afresh (in turn: web-a).
    now += 61_000;
    await two.request(get('web'));
    expect(traffic.count('default', 'web-a')).toBe(4);
    // The endpoint gone NotReady: another one.
    table.upsertSlice(slice(['web-a', 'web-b'], ['web-a']));
    await one.request(get('web'));
    expect(traffic.count('default', 'web-b')).toBe(3);
  });

  it('internalTrafficPolicy Local: only endpoints on the client\'s node; none there drops (a timeout), none at all is refused', async () => {
    const pods = new Map([['web-a', nginxPod('web-a', '10.244.0.10')], ['web-b', nginxPod('web-b', '10.244.0.11')], ['client', nginxPod('client', '10.244.0.99')]]);
    for (const [n, node] of [['web-a', 'node-1'], ['web-b', 'node-2'], ['client', 'node-2']] as const) (pods.get(n) as LoggedPod).current.spec.nodeName = node;
    const table = new ServiceTable();
    table.upsertService({ ...service, spec: { ...service.spec, internalTrafficPolicy: 'Local' } });
    const onNodes = (names: string[]): EndpointSlice => ({ ...slice(names), endpoints: (slice(names).endpoints ?? []).map((e, i) => ({ ...e, nodeName: names[i] === 'web-a' ? 'node-1' : 'node-2' })) });
    table.upsertSlice(onNodes(['web-a', 'web-b']));
    const traffic = new PodTraffic();
    const net = new ClusterNetwork({ table, traffic, clock: realClock, findPod: (ns, n) => (ns === 'default' ? pods.get(n) : undefined) });
    const shell = net.forPod({ namespace: 'default', name: 'client', ip: '10.244.0.99' });
    for (let i = 0; i < 4; i++) expect(await shell.request(get('web'))).toMatchObject({ kind: 'response', status: 200 });
    expect([traffic.count('default', 'web-a'), traffic.count('default', 'web-b')]).toEqual([0, 4]);
    table.upsertSlice(onNodes(['web-a']));
    expect(await shell.request(get('web'))).toEqual({ kind: 'error', error: 'timeout', address: '10.96.0.20' });
    table.upsertSlice(onNodes([]));
    expect(await shell.request(get('web'))).toEqual({ kind: 'error', error: 'refused', address: '10.96.0.20' });
  });

  it('wget and curl in an exec session go through it', async () => {
    const { shell } = setup();
    const session = new ShellSession({ startedAt: 0, env: {}, hostname: 'client', network: shell });
    let out = '';
    let err = '';
    const write = (s: 'stdout' | 'stderr', t: string) => (s === 'stdout' ? (out += t) : (err += t));
    const code = await drive(session.run(['sh', '-c', 'wget -q -O- http://web > page; curl -s http://web/nope; wget -q -O- http://nosuch; echo status=$?; cat page']), write, new AbortController().signal);
    expect(code).toBe(0);
    expect(err).toBe("wget: bad address 'nosuch'\n");
    expect(out).toMatch(/^<html>\r?\n<head><title>404 Not Found<\/title>[^]*status=1\n<!DOCTYPE html>[^]*Welcome to nginx!/);
  });
});

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointSlice, Pod, Service } from '@kemu/api';
import { realClock, type Logger } from '@kemu/base';
import type { LoggedPod } from '../server/container-logs.ts';
import { ClusterNetwork } from './cluster-network.ts';
import { NodePorts } from './node-ports.ts';
import { PodNetworkServer, dialPod, podFrame } from './pod-network.ts';
import { ServiceTable } from './service-table.ts';
import { PodTraffic } from './traffic.ts';

const logger = { info() {}, error() {}, warn() {}, debug() {} } as unknown as Logger;

function hostPod(name: string, ip: string): LoggedPod {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `u-${name}` }, spec: { hostname: name, containers: [{ name: 'agnhost', image: 'registry.k8s.io/e2e-test-images/agnhost:2.39', args: ['serve-hostname'], ports: [{ containerPort: 9376 }] }] }, status: { podIP: ip } } as Pod;
  return { current: pod, lifecycle: { containers: [{ name: 'agnhost', state: { kind: 'running' } }] } } as unknown as LoggedPod;
}

const NODE_PORT = 30000 + (process.pid % 2700);
const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hn', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.0.30', ports: [{ port: 80, targetPort: 9376, nodePort: NODE_PORT, protocol: 'TCP' }] } };
const slice: EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'hn-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'hn' } },
  addressType: 'IPv4',
  ports: [{ name: '', port: 9376, protocol: 'TCP' }],
  endpoints: [
    { addresses: ['10.244.1.10'], conditions: { ready: true }, nodeName: 'node-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'hn-a' } },
    { addresses: ['10.244.2.10'], conditions: { ready: true }, nodeName: 'node-b', targetRef: { kind: 'Pod', namespace: 'default', name: 'hn-b' } },
    { addresses: ['10.244.3.10'], conditions: { ready: true }, nodeName: 'node-c', targetRef: { kind: 'Pod', namespace: 'default', name: 'hn-c' } },
  ],
};

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((f) => f()));

/** One kubelet process' kube-proxy running `pod`, its pod-network listener on loopback; `port` says where each node's listener is. */
async function node(pod: LoggedPod, ports: Map<string, number>, name: string) {
  const table = new ServiceTable();
  table.upsertService(service);
  table.upsertSlice(slice);
  const traffic = new PodTraffic();
  const own = pod.current.metadata.name;
  const network = new ClusterNetwork({
    table,
    traffic,
    clock: realClock,
    findPod: (ns, n) => (ns === 'default' && n === own ? pod : undefined),
    remote: async (e) => {
      const p = ports.get(e.nodeName);
      return p ? dialPod('127.0.0.1', p, e.ip, e.port) : undefined;
    },
  });
  const server = new PodNetworkServer((ip, port) => network.connectLocal(ip, port), logger);
  const port = await server.listen('127.0.0.1', 0);
  stops.push(() => server.stop());
  ports.set(name, port ?? 0);
  return { network, traffic, table, port: port ?? 0 };
}

async function threeNodes() {
  const ports = new Map<string, number>();
  const a = await node(hostPod('hn-a', '10.244.1.10'), ports, 'node-a');
  const b = await node(hostPod('hn-b', '10.244.2.10'), ports, 'node-b');
  const c = await node(hostPod('hn-c', '10.244.3.10'), ports, 'node-c');
  return { a, b, c };
}

/** Sends raw bytes over the pod network's port and reads until the far end closes (or resets). */
function raw(port: number, bytes: string): Promise<{ data: string; reset: boolean }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.end(bytes));
    let data = '';
    s.on('data', (c: Buffer) => (data += c.toString()));
    s.on('error', () => resolve({ data, reset: true }));
    s.on('close', () => resolve({ data, reset: false }));
  });
}

describe('the pod network', () => {
  it('a ClusterIP from one process reaches every ready endpoint in turn, those of other processes through their node, counted where served', async () => {
    const { a, b, c } = await threeNodes();
    const shell = a.network.forPod({ namespace: 'default', name: 'client' });
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await shell.request({ method: 'GET', host: 'hn', port: 80, path: '/', headers: { Host: 'hn' } });
      if (r.kind === 'response') answers.push(r.body);
    }
    expect(answers.sort()).toEqual(['hn-a', 'hn-a', 'hn-b', 'hn-b', 'hn-c', 'hn-c']);
    expect([a.traffic.count('default', 'hn-a'), b.traffic.count('default', 'hn-b'), c.traffic.count('default', 'hn-c')]).toEqual([2, 2, 2]);
  });

  it('a NodePort on one node answers from the pods of all three', async () => {
    const { a } = await threeNodes();
    const ports = new NodePorts(a.table, a.network, ['127.0.0.1'], logger);
    ports.sync();
    stops.push(() => ports.stop());
    await expect.poll(() => ports.bound()).toEqual([`127.0.0.1:${NODE_PORT}`]);
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`http://127.0.0.1:${NODE_PORT}/`, { headers: { connection: 'close' } }).catch(() => undefined);
      if (res) seen.add(await res.text());
    }
    expect([...seen].sort()).toEqual(['hn-a', 'hn-b', 'hn-c']);
  });

  it('a pod the node does not run, a port nothing listens on, or a bad frame is reset; a good frame is carried both ways', async () => {
    const { b } = await threeNodes();
    expect((await raw(b.port, podFrame('10.244.1.10', 9376) + 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).data).toBe('');
    expect((await raw(b.port, podFrame('10.244.2.10', 81))).data).toBe('');
    expect((await raw(b.port, 'GET / HTTP/1.1\r\n\r\n')).data).toBe('');
    const ok = await raw(b.port, podFrame('10.244.2.10', 9376) + 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(ok.data).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nhn-b$/);
  });
});

import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { EndpointSlice, Pod, Service } from '@kemu/api';
import { realClock, type Logger } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { waitFor } from '@kemu/base/testing/processes';
import type { LoggedPod } from '../server/container-logs.ts';
import { ClusterNetwork } from './cluster-network.ts';
import { nodePortAddresses } from './flags.ts';
import { NodePorts } from './node-ports.ts';
import { ServiceTable } from './service-table.ts';
import { PodTraffic } from './traffic.ts';

const logger = { info() {}, error() {}, warn() {}, debug() {} } as unknown as Logger;

function nginxPod(name: string): LoggedPod {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `u-${name}` }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.3' }] }, status: { podIP: '10.244.0.10' } } as Pod;
  return { current: pod, lifecycle: { containers: [{ name: 'nginx', state: { kind: 'running' } }] } } as unknown as LoggedPod;
}

function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('nodePortAddresses', () => {
  it('defaults to the node IP; CIDRs keep it when they hold it; 0.0.0.0/0 is every address', () => {
    expect(nodePortAddresses([], '127.0.0.5')).toEqual(['127.0.0.5']);
    expect(nodePortAddresses(['primary'], '127.0.0.5')).toEqual(['127.0.0.5']);
    expect(nodePortAddresses(['127.0.0.0/8'], '127.0.0.5')).toEqual(['127.0.0.5']);
    expect(nodePortAddresses(['10.0.0.0/8'], '127.0.0.5')).toEqual([]);
    expect(nodePortAddresses(['0.0.0.0/0'], '127.0.0.5')).toEqual(['0.0.0.0']);
    expect(() => nodePortAddresses(['10.0.0.1'], '127.0.0.5')).toThrow('KubeProxyConfiguration.nodePortAddresses[0]: Invalid value: "10.0.0.1": must be a valid CIDR');
  });
});

describe('NodePorts', () => {
  it('listens on each Service nodePort, forwards to a ready endpoint, resets without one, and closes when the Service goes', async () => {
    const nodePort = await freePort();
    const table = new ServiceTable();
    const traffic = new PodTraffic();
    const network = new ClusterNetwork({ table, traffic, clock: realClock, findPod: (ns, n) => (ns === 'default' && n === 'web-a' ? nginxPod('web-a') : undefined) });
    const ports = new NodePorts(table, network, ['127.0.0.1'], logger);
    table.onServicesChanged = () => ports.changed();
    const svc: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort, protocol: 'TCP' }] } };
    const slice = (ready: boolean): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: '', port: 80 }],
      endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready }, targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a' } }],
    });
    try {
      table.upsertSlice(slice(true));
      table.upsertService(svc);
      await waitFor('the NodePort listening', () => ports.bound().includes(`127.0.0.1:${nodePort}`), 5_000, 10);
      await waitFor('nginx through the NodePort', async () => (await get(nodePort).catch(() => ({ status: 0, body: '' }))).body.includes('Welcome to nginx!'), 5_000, 20);
      expect(traffic.count('default', 'web-a')).toBeGreaterThanOrEqual(1);
      table.upsertSlice(slice(false));
      await expect(get(nodePort)).rejects.toThrow(/ECONNRESET|socket hang up/);
      table.deleteService(svc);
      await waitFor('the NodePort closed', async () => (await get(nodePort).then(() => '', (e: Error) => e.message)).includes('ECONNREFUSED'), 5_000, 20);
    } finally {
      ports.stop();
    }
  });

  it('externalTrafficPolicy Local: a node with a ready endpoint of its own forwards; one without drops the connection unanswered', async () => {
    const nodePort = await freePort();
    const table = new ServiceTable();
    const network = new ClusterNetwork({ table, traffic: new PodTraffic(), clock: realClock, nodeName: 'node-1', findPod: (ns, n) => (ns === 'default' && n === 'web-a' ? nginxPod('web-a') : undefined) });
    const ports = new NodePorts(table, network, ['127.0.0.1'], logger);
    table.onServicesChanged = () => ports.changed();
    const on = (nodeName: string): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: '', port: 80 }],
      endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready: true }, nodeName, targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a' } }],
    });
    try {
      table.upsertSlice(on('node-1'));
      table.upsertService({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'NodePort', externalTrafficPolicy: 'Local', clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort, protocol: 'TCP' }] } });
      await waitFor('nginx through the NodePort', async () => (await get(nodePort).catch(() => ({ status: 0, body: '' }))).body.includes('Welcome to nginx!'), 5_000, 20);
      table.upsertSlice(on('node-2'));
      // No answer and no reset: the request is still waiting when the client gives up.
      const outcome = await new Promise<string>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port: nodePort, path: '/', agent: false, timeout: 300 }, () => resolve('answered'));
        req.on('timeout', () => {
          req.destroy();
          resolve('timed out');
        });
        req.on('error', (e) => resolve(`error ${e.message}`));
      });
      expect(outcome).toBe('timed out');
    } finally {
      ports.stop();
    }
  });

  it('a LoadBalancer\'s healthCheckNodePort answers kube-proxy\'s health check: 200 with a local endpoint, 503 without', async () => {
    const [nodePort, hcPort] = [await freePort(), await freePort()];
    const table = new ServiceTable();
    const network = new ClusterNetwork({ table, traffic: new PodTraffic(), clock: realClock, nodeName: 'node-1', findPod: () => undefined });
    const ports = new NodePorts(table, network, ['127.0.0.1'], logger, 'node-1');
    table.onServicesChanged = () => ports.changed();
    const on = (nodeName: string): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: '', port: 80 }],
      endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready: true }, nodeName, targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a' } }],
    });
    const check = () =>
      new Promise<{ status: number; weight: string; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: hcPort, path: '/healthz', agent: false }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, weight: String(res.headers['x-load-balancing-endpoint-weight']), body }));
          })
          .on('error', reject);
      });
    try {
      table.upsertSlice(on('node-1'));
      table.upsertService({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hcPort, clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort, protocol: 'TCP' }] } });
      await waitFor('the health check port listening', () => ports.bound().includes(`127.0.0.1:${hcPort}`), 5_000, 10);
      expect(await check()).toEqual({
        status: 200,
        weight: '1',
        body: '{\n\t"service": {\n\t\t"namespace": "default",\n\t\t"name": "web"\n\t},\n\t"localEndpoints": 1,\n\t"serviceProxyHealthy": true\n}',
      });
      table.upsertSlice(on('node-2'));
      expect(await check()).toMatchObject({ status: 503, weight: '0', body: expect.stringContaining('"localEndpoints": 0,') });
    } finally {
      ports.stop();
    }
  });
});

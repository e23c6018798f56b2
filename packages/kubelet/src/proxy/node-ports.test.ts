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

function get(port: number, path = '/'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

/**
 * A NodePorts on 127.0.0.1 fed by its own ServiceTable; the pod web-a (nginx) is the only one found. nodeName:
 * the node the cluster network runs on; proxyNodeName: the one NodePorts counts local endpoints for.
 */
function nodePortsRig(opts: { nodeName?: string; proxyNodeName?: string } = {}) {
  const table = new ServiceTable();
  const traffic = new PodTraffic();
  const findPod = (ns: string, n: string) => (ns === 'default' && n === 'web-a' ? nginxPod('web-a') : undefined);
  const network = new ClusterNetwork({ table, traffic, clock: realClock, ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), findPod });
  const ports = new NodePorts(table, network, ['127.0.0.1'], logger, opts.proxyNodeName);
  table.onServicesChanged = () => ports.changed();
  return { table, traffic, ports };
}

/** Service web's EndpointSlice: web-a at 10.244.0.10:80, ready or not, on nodeName when given. */
function webSlice(opts: { ready?: boolean; nodeName?: string } = {}): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: '', port: 80 }],
    endpoints: [
      {
        addresses: ['10.244.0.10'],
        conditions: { ready: opts.ready ?? true },
        ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
        targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a' },
      },
    ],
  };
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
    const { table, traffic, ports } = nodePortsRig();
    const svc: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'NodePort', clusterIP: '10.96.0.20', ports: [{ port: 80, nodePort, protocol: 'TCP' }] } };
    try {
      table.upsertSlice(webSlice({ ready: true }));
      table.upsertService(svc);
      await waitFor('the NodePort listening', () => ports.bound().includes(`127.0.0.1:${nodePort}`), 5_000, 10);
      await waitFor('nginx through the NodePort', async () => (await get(nodePort).catch(() => ({ status: 0, body: '' }))).body.includes('Welcome to nginx!'), 5_000, 20);
      expect(traffic.count('default', 'web-a')).toBeGreaterThanOrEqual(1);
      table.upsertSlice(webSlice({ ready: false }));
      await expect(get(nodePort)).rejects.toThrow(/ECONNRESET|socket hang up/);
      table.deleteService(svc);
      await waitFor('the NodePort closed', async () => (await get(nodePort).then(() => '', (e: Error) => e.message)).includes('ECONNREFUSED'), 5_000, 20);
    } finally {
      ports.stop();
    }
  });

  it('externalTrafficPolicy Local: a node with a ready endpoint of its own forwards; one without drops the connection unanswered', async () => {
    const nodePort = await freePort();
    const { table, ports } = nodePortsRig({ nodeName: 'node-1' });
    const on = (nodeName: string) => webSlice({ nodeName });
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
    const { table, ports } = nodePortsRig({ nodeName: 'node-1', proxyNodeName: 'node-1' });
    const on = (nodeName: string) => webSlice({ nodeName });
    const check = async () => {
      const r = await get(hcPort, '/healthz');
      return { status: r.status, weight: String(r.headers['x-load-balancing-endpoint-weight']), body: r.body };
    };
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

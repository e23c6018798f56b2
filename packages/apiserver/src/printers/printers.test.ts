import { describe, expect, it } from 'vitest';
import { R, RESOURCES } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { humanDuration, printerFor } from './index.ts';

const NOW = Date.parse('2026-12-02T12:00:00Z');
const ago = (s: number): string => new Date(NOW - s * 1000).toISOString().replace('.000Z', 'Z');

describe('humanDuration', () => {
  it.each([
    [-5, '<invalid>'],
    [-1, '0s'],
    [0, '0s'],
    [5, '5s'],
    [119, '119s'],
    [120, '2m'],
    [200, '3m20s'],
    [600, '10m'],
    [179 * 60, '179m'],
    [3 * 3600, '3h'],
    [3 * 3600 + 5 * 60, '3h5m'],
    [8 * 3600, '8h'],
    [47 * 3600, '47h'],
    [2 * 86400 + 5 * 3600, '2d5h'],
    [3 * 86400, '3d'],
    [30 * 86400, '30d'],
    [800 * 86400, '2y70d'],
    [9 * 365 * 86400, '9y'],
  ])('%ds → %s', (s, want) => expect(humanDuration(s * 1000)).toBe(want));
});

function cells(r: (typeof R)[keyof typeof R], o: KubeObject): unknown[] {
  const p = printerFor(r);
  if (!p) throw new Error('no printer');
  const c = p.cells(o, NOW);
  expect(c).toHaveLength(p.columns.length);
  return c;
}

const pod = (status: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { name: 'p', namespace: 'd', creationTimestamp: ago(300), ...(extra.metadata ?? {}) },
  spec: { containers: [{ name: 'a' }], nodeName: 'node-1', ...((extra.spec as object) ?? {}) },
  status,
});

describe('pod printer', () => {
  it.each<[string, KubeObject, unknown[]]>([
    ['pending, unscheduled', { metadata: { name: 'p', creationTimestamp: ago(5) }, spec: { containers: [{ name: 'a' }] }, status: { phase: 'Pending' } }, ['p', '0/1', 'Pending', '0', '5s', '<none>', '<none>', '<none>', '<none>']],
    [
      'container creating',
      pod({ phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }),
      ['p', '0/1', 'ContainerCreating', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'running and ready',
      pod({ phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }], containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: { running: {} } }] }),
      ['p', '1/1', 'Running', '0', '5m', '10.244.1.5', 'node-1', '<none>', '<none>'],
    ],
    [
      'crash loop with restarts ago',
      pod({
        phase: 'Running',
        containerStatuses: [
          {
            name: 'a',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: ago(42) } },
          },
        ],
      }),
      ['p', '0/1', 'CrashLoopBackOff', '3 (42s ago)', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'completed',
      pod({ phase: 'Succeeded', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }),
      ['p', '0/1', 'Completed', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'exit code without reason',
      pod({ phase: 'Failed', containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] }),
      ['p', '0/1', 'ExitCode:2', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'init containers in progress',
      pod(
        { phase: 'Pending', initContainerStatuses: [{ name: 'i1', ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }, { name: 'i2', ready: false, restartCount: 0, state: { running: {} } }] },
        { spec: { containers: [{ name: 'a' }], initContainers: [{ name: 'i1' }, { name: 'i2' }], nodeName: 'node-1' } },
      ),
      ['p', '0/1', 'Init:1/2', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'terminating',
      pod({ phase: 'Running', containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: { running: {} } }] }, { metadata: { name: 'p', creationTimestamp: ago(300), deletionTimestamp: ago(1) } }),
      ['p', '1/1', 'Terminating', '0', '5m', '<none>', 'node-1', '<none>', '<none>'],
    ],
    [
      'readiness gates and nominated node',
      pod(
        { phase: 'Pending', nominatedNodeName: 'node-2', conditions: [{ type: 'g1', status: 'True' }] },
        { spec: { containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'g1' }, { conditionType: 'g2' }] } },
      ),
      ['p', '0/1', 'Pending', '0', '5m', '<none>', 'node-1', 'node-2', '1/2'],
    ],
  ])('%s', (_n, o, want) => expect(cells(R.pods, o)).toEqual(want));

  it('has the kubectl columns', () => {
    expect(printerFor(R.pods)?.columns.map((c) => `${c.name}${c.priority ? '*' : ''}`)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP*',
      'Node*',
      'Nominated Node*',
      'Readiness Gates*',
    ]);
  });
});

describe('other printers', () => {
  it.each<[string, (typeof R)[keyof typeof R], KubeObject, unknown[]]>([
    [
      'node ready, cordoned, roles',
      R.nodes,
      {
        metadata: { name: 'n1', creationTimestamp: ago(3 * 86400), labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/worker': '' } },
        spec: { unschedulable: true },
        status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], nodeInfo: { kubeletVersion: 'v1.31.0', osImage: 'kemu', kernelVersion: '6.1', containerRuntimeVersion: 'kemu://1' } },
      },
      ['n1', 'Ready,SchedulingDisabled', 'control-plane,worker', '3d', 'v1.31.0', '10.0.0.1', '<none>', 'kemu', '6.1', 'kemu://1'],
    ],
    ['node without conditions', R.nodes, { metadata: { name: 'n2' } }, ['n2', 'Unknown', '<none>', '<unknown>', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']],
    ['namespace', R.namespaces, { metadata: { name: 'default', creationTimestamp: ago(60) }, status: { phase: 'Active' } }, ['default', 'Active', '60s']],
    [
      'service ClusterIP',
      R.services,
      { metadata: { name: 'web', creationTimestamp: ago(60) }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { b: '2', a: '1' } } },
      ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP,53/UDP', '60s', 'a=1,b=2'],
    ],
    [
      'service NodePort',
      R.services,
      { metadata: { name: 'np', creationTimestamp: ago(60) }, spec: { type: 'NodePort', clusterIP: '10.96.0.11', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } },
      ['np', 'NodePort', '10.96.0.11', '<none>', '80:30080/TCP', '60s', '<none>'],
    ],
    ['service LoadBalancer pending', R.services, { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', clusterIP: '10.96.0.12', ports: [] } }, ['lb', 'LoadBalancer', '10.96.0.12', '<pending>', '<none>', '<unknown>', '<none>']],
    [
      'endpoints',
      R.endpoints,
      { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }] },
      ['web', '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...', '<unknown>'],
    ],
    ['endpoints none', R.endpoints, { metadata: { name: 'x' } }, ['x', '<none>', '<unknown>']],
    ['configmap', R.configmaps, { metadata: { name: 'c' }, data: { a: '1', b: '2' } }, ['c', 2, '<unknown>']],
    ['secret', R.secrets, { metadata: { name: 's' }, type: 'Opaque', data: { a: 'eA==' } }, ['s', 'Opaque', 1, '<unknown>']],
    ['serviceaccount', R.serviceaccounts, { metadata: { name: 'default' } }, ['default', 0, '<unknown>']],
    ['componentstatus', R.componentstatuses, { metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }, ['etcd-0', 'Healthy', 'ok', '']],
    [
      'event',
      R.events,
      {
        metadata: { name: 'p.123' },
        involvedObject: { kind: 'Pod', name: 'p' },
        type: 'Normal',
        reason: 'Scheduled',
        message: 'Successfully assigned d/p to node-1 ',
        source: { component: 'default-scheduler' },
        firstTimestamp: ago(120),
        lastTimestamp: ago(30),
        count: 2,
      },
      ['30s', 'Normal', 'Scheduled', 'pod/p', '', 'default-scheduler', 'Successfully assigned d/p to node-1', '2m', 2, 'p.123'],
    ],
    [
      'deployment',
      R.deployments,
      {
        metadata: { name: 'web', creationTimestamp: ago(10) },
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1' }, { name: 's', image: 'busybox' }] } } },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      },
      ['web', '2/3', 3, 2, '10s', 'nginx,s', 'nginx:1,busybox', 'app=web'],
    ],
    [
      'replicaset',
      R.replicasets,
      { metadata: { name: 'web-abc' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } }, status: { replicas: 3, readyReplicas: 1 } },
      ['web-abc', 3, 3, 1, '<unknown>', 'nginx', 'nginx', 'app=web'],
    ],
    ['lease', R.leases, { metadata: { name: 'kube-scheduler', creationTimestamp: ago(9) }, spec: { holderIdentity: 'host_1' } }, ['kube-scheduler', 'host_1', '9s']],
    [
      'endpointslice',
      R.endpointslices,
      { metadata: { name: 'web-x' }, addressType: 'IPv4', ports: [{ port: 80 }], endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }] },
      ['web-x', 'IPv4', '80', '10.0.0.1,10.0.0.2', '<unknown>'],
    ],
    ['endpointslice empty', R.endpointslices, { metadata: { name: 'e' }, addressType: 'IPv4', endpoints: null }, ['e', 'IPv4', '<unset>', '<unset>', '<unknown>']],
    ['priorityclass', R.priorityclasses, { metadata: { name: 'system-node-critical' }, value: 2000001000 }, ['system-node-critical', 2000001000, false, '<unknown>', 'PreemptLowerPriority']],
  ])('%s', (_n, r, o, want) => expect(cells(r, o)).toEqual(want));

  it('every printer has a Name column with format name first (except events)', () => {
    for (const r of RESOURCES) {
      const p = printerFor(r);
      if (!p || r.kind === 'Event') continue;
      expect(p.columns[0]).toMatchObject({ name: 'Name', format: 'name' });
    }
  });
});

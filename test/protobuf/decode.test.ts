// Table-driven tests of the protobuf body reader with bytes built by a tiny encoder: Go's JSON shape
// (omitempty, pointers, inline structs, maps, special types) and Status errors for bad input.
import { StatusError } from '@kemu/api';
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../packages/apiserver/src/body.ts';
import { decodeProtobufObject } from '../../packages/apiserver/src/protobuf/index.ts';
import { Reader, WireError } from '../../packages/apiserver/src/protobuf/wire.ts';
import { bool, bytes, cat, entry, envelope, int, msg, str, tag, varint } from './encoder.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const meta = (...parts: Uint8Array[]) => msg(1, ...parts);
const intOrStr = (field: number, v: number | string) =>
  typeof v === 'number' ? msg(field, int(1, 0), int(2, v), str(3, '')) : msg(field, int(1, 1), int(2, 0), str(3, v));

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const s = e as StatusError;
    return { code: s.code, reason: s.reason, message: s.message };
  }
  throw new Error('expected a StatusError');
}

describe('wire reader', () => {
  it.each([
    [0, [0x00]],
    [1, [0x01]],
    [300, [0xac, 0x02]],
    [2 ** 40, [...varint(2 ** 40)]],
    [-1, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    [-30, [...varint(-30)]],
  ])('varint %d', (n, b) => {
    expect(new Reader(Uint8Array.from(b)).int()).toBe(n);
  });
  it.each([
    ['truncated varint', [0x80]],
    ['varint longer than 10 bytes', [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]],
  ])('%s', (msgText, b) => {
    expect(() => new Reader(Uint8Array.from(b)).int()).toThrow(WireError);
    expect(() => new Reader(Uint8Array.from(b)).int()).toThrow(msgText);
  });
  it('length-delimited fields cannot run past their message', () => {
    expect(() => new Reader(Uint8Array.from([0x05, 0x61])).string()).toThrow(/past the end/);
  });
});

const cases: { name: string; apiVersion: string; kind: string; raw: Uint8Array; want: Record<string, unknown> }[] = [
  {
    name: 'Namespace: gogo-style empty scalars are omitted, empty spec/status kept like Go JSON',
    apiVersion: 'v1',
    kind: 'Namespace',
    raw: cat(meta(str(1, 'foo'), str(2, ''), str(3, ''), str(4, ''), str(5, ''), str(6, ''), int(7, 0), msg(8)), msg(2), msg(3, str(1, ''))),
    want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} },
  },
  {
    name: 'ObjectMeta: labels/annotations maps, finalizers, ownerReferences with pointer bools, times',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    raw: cat(
      meta(
        str(1, 'cm'),
        str(3, 'ns1'),
        int(7, 3),
        msg(8, int(1, 1764680540), int(2, 0)),
        int(10, 0),
        entry(11, 'app', 'web'),
        entry(11, 'tier', 'fe'),
        entry(12, 'note', ''),
        msg(13, str(5, 'apps/v1'), str(1, 'ReplicaSet'), str(3, 'rs'), str(4, 'u-1'), bool(6, true), bool(7, false)),
        str(14, 'a/b'),
        str(14, 'c/d'),
      ),
      entry(2, 'k', 'v'),
      entry(3, 'bin', Uint8Array.from([0, 1, 2])),
      bool(4, false),
    ),
    want: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cm',
        namespace: 'ns1',
        generation: 3,
        creationTimestamp: '2025-12-02T13:02:20Z',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web', tier: 'fe' },
        annotations: { note: '' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true, blockOwnerDeletion: false }],
        finalizers: ['a/b', 'c/d'],
      },
      data: { k: 'v' },
      binaryData: { bin: 'AAEC' },
      immutable: false,
    },
  },
  {
    name: 'Secret: data bytes become base64, stringData stays text, type kept',
    apiVersion: 'v1',
    kind: 'Secret',
    raw: cat(meta(str(1, 's')), entry(2, 'user', Buffer.from('admin')), entry(4, 'plain', 'text'), str(3, 'Opaque')),
    want: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { user: 'YWRtaW4=' }, stringData: { plain: 'text' }, type: 'Opaque' },
  },
  {
    name: 'Service: IntOrString targetPort (int and string), pointer strings kept, zero nodePort omitted',
    apiVersion: 'v1',
    kind: 'Service',
    raw: cat(
      meta(str(1, 'svc')),
      msg(
        2,
        msg(1, str(1, 'http'), str(2, 'TCP'), int(3, 80), intOrStr(4, 8080), int(5, 0)),
        msg(1, str(1, 'named'), str(2, 'TCP'), str(6, 'h2c'), int(3, 81), intOrStr(4, 'web')),
        entry(2, 'app', 'web'),
        str(3, ''),
        str(4, 'ClusterIP'),
        str(17, 'SingleStack'),
        str(19, 'IPv4'),
        msg(14, msg(1, int(1, 10800))),
      ),
      msg(3, msg(1)),
    ),
    want: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
          { name: 'named', protocol: 'TCP', appProtocol: 'h2c', port: 81, targetPort: 'web' },
        ],
        selector: { app: 'web' },
        type: 'ClusterIP',
        ipFamilyPolicy: 'SingleStack',
        ipFamilies: ['IPv4'],
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      },
      status: { loadBalancer: {} },
    },
  },
  {
    name: 'Deployment: pointer replicas 0 kept, strategy with IntOrString percentages, full container',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    raw: cat(
      meta(str(1, 'web')),
      msg(
        2,
        int(1, 0),
        msg(2, entry(1, 'app', 'web'), msg(2, str(1, 'tier'), str(2, 'In'), str(3, 'fe'), str(3, 'be'))),
        msg(
          3,
          msg(1, entry(11, 'app', 'web')),
          msg(
            2,
            msg(1, str(1, 'data'), msg(2, msg(2, str(1, ''), msg(2, str(1, '1Gi'))))),
            msg(1, str(1, 'cfg'), msg(2, msg(19, msg(1, str(1, 'my-cm')), int(3, 420)))),
            msg(
              2,
              str(1, 'nginx'),
              str(2, 'nginx:1.27'),
              str(3, 'nginx'),
              str(4, '-g'),
              str(4, 'daemon off;'),
              msg(6, str(1, 'http'), int(2, 0), int(3, 80), str(4, 'TCP'), str(5, '')),
              msg(7, str(1, 'MODE'), str(2, 'prod')),
              msg(7, str(1, 'POD'), str(2, ''), msg(3, msg(1, str(1, 'v1'), str(2, 'metadata.name')))),
              msg(7, str(1, 'PW'), msg(3, msg(4, msg(1, str(1, 'creds')), str(2, 'pw'), bool(3, true)))),
              msg(19, str(1, 'CM_'), msg(2, msg(1, str(1, 'env-cm')))),
              msg(8, entry(1, 'cpu', cat()), msg(1, str(1, 'memory'), msg(2, str(1, '128Mi'))), msg(2, str(1, 'cpu'), msg(2, str(1, '100m')))),
              msg(9, str(1, 'data'), bool(2, true), str(3, '/data'), str(4, '')),
              msg(10, msg(1, msg(2, str(1, '/healthz'), intOrStr(2, 8080), str(4, 'HTTP'))), int(2, 5), int(4, 10), int(5, 0)),
              msg(11, msg(1, msg(3, intOrStr(1, 'http'))), int(3, 1)),
              msg(12, msg(2, msg(1, str(1, 'sh'), str(1, '-c'), str(1, 'sleep 5')))),
              str(14, 'IfNotPresent'),
              msg(15, msg(1, str(2, 'ALL')), int(4, 1000), bool(5, true), bool(7, false)),
            ),
            str(3, 'Always'),
            int(4, 30),
            entry(7, 'disk', 'ssd'),
            str(8, 'sa'),
            msg(14, int(5, 2000)),
            msg(18, msg(1, msg(1, msg(1, msg(1, str(1, 'zone'), str(2, 'In'), str(3, 'a')))))),
            msg(22, str(1, 'node.kubernetes.io/not-ready'), str(2, 'Exists'), str(3, ''), str(4, 'NoExecute'), int(5, 300)),
            int(25, 0),
          ),
        ),
        msg(4, str(1, 'RollingUpdate'), msg(2, intOrStr(1, '25%'), intOrStr(2, 1))),
        int(5, 0),
        int(6, 10),
        bool(7, false),
        int(9, 600),
      ),
      msg(3),
    ),
    want: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            volumes: [
              { name: 'data', emptyDir: { sizeLimit: '1Gi' } },
              { name: 'cfg', configMap: { name: 'my-cm', defaultMode: 420 } },
            ],
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1.27',
                command: ['nginx'],
                args: ['-g', 'daemon off;'],
                ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
                env: [
                  { name: 'MODE', value: 'prod' },
                  { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
                  { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'pw', optional: true } } },
                ],
                envFrom: [{ prefix: 'CM_', configMapRef: { name: 'env-cm' } }],
                resources: { limits: { cpu: '0', memory: '128Mi' }, requests: { cpu: '100m' } },
                volumeMounts: [{ name: 'data', readOnly: true, mountPath: '/data' }],
                livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 5, periodSeconds: 10 },
                readinessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 1 },
                lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 5'] } } },
                imagePullPolicy: 'IfNotPresent',
                securityContext: { capabilities: { drop: ['ALL'] }, runAsUser: 1000, runAsNonRoot: true, allowPrivilegeEscalation: false },
              },
            ],
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 30,
            nodeSelector: { disk: 'ssd' },
            serviceAccountName: 'sa',
            securityContext: { fsGroup: 2000 },
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
              },
            },
            tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
            priority: 0,
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    },
  },
  {
    name: 'Pod: emptyDir {} survives (pointer message), packed supplementalGroups, negative int64',
    apiVersion: 'v1',
    kind: 'Pod',
    raw: cat(
      meta(str(1, 'p')),
      msg(
        2,
        msg(1, str(1, 'tmp'), msg(2, msg(2))),
        msg(2, str(1, 'c'), str(2, 'busybox')),
        msg(14, bytes(4, cat(varint(1), varint(300))), int(2, -5)),
      ),
    ),
    want: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'tmp', emptyDir: {} }],
        containers: [{ name: 'c', image: 'busybox' }],
        securityContext: { supplementalGroups: [1, 300], runAsUser: -5 },
      },
    },
  },
  {
    name: 'Lease: MicroTime keeps microseconds',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    raw: cat(meta(str(1, 'l')), msg(2, str(1, 'me'), int(2, 15), msg(4, int(1, 1764680540), int(2, 123456000)), int(5, 0))),
    want: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2025-12-02T13:02:20.123456Z', leaseTransitions: 0 },
    },
  },
  {
    name: 'SelfSubjectAccessReview: resourceAttributes with field and label selector attributes, gogo-zero status',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    raw: cat(
      meta(str(1, '')),
      msg(
        2,
        msg(
          1,
          str(1, 'default'),
          str(2, 'list'),
          str(3, 'apps'),
          str(4, ''),
          str(5, 'deployments'),
          str(6, 'scale'),
          str(7, ''),
          msg(8, str(1, 'metadata.name=web'), msg(2, str(1, 'metadata.namespace'), str(2, 'In'), str(3, 'default'), str(3, 'prod'))),
          msg(9, str(1, ''), msg(2, str(1, 'app'), str(2, 'Exists'))),
        ),
      ),
      msg(3, bool(1, false), str(2, ''), str(3, ''), bool(4, false)),
    ),
    want: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: 'default',
          verb: 'list',
          group: 'apps',
          resource: 'deployments',
          subresource: 'scale',
          fieldSelector: { rawSelector: 'metadata.name=web', requirements: [{ key: 'metadata.namespace', operator: 'In', values: ['default', 'prod'] }] },
          labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] },
        },
      },
      status: {},
    },
  },
  {
    name: 'SelfSubjectAccessReview: nonResourceAttributes (auth can-i get /healthz), status fields kept when set',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    raw: cat(meta(), msg(2, msg(2, str(1, '/healthz'), str(2, 'get'))), msg(3, bool(1, true), str(2, 'ok'), bool(4, false))),
    want: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
      status: { allowed: true, reason: 'ok' },
    },
  },
  {
    name: 'SelfSubjectRulesReview: spec.namespace; status rules are string lists, a zero incomplete dropped',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    raw: cat(
      meta(),
      msg(2, str(1, 'default')),
      msg(3, msg(1, str(1, 'get'), str(1, 'list'), str(2, ''), str(3, 'pods'), str(4, 'web')), msg(2, str(1, 'get'), str(2, '/healthz')), bool(3, false), str(4, 'x')),
    ),
    want: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: { namespace: 'default' },
      status: {
        resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        evaluationError: 'x',
      },
    },
  },
  {
    name: 'SelfSubjectReview: userInfo extra values are plain string lists (ExtraValue), an empty one []',
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    raw: cat(
      meta(),
      msg(2, msg(1, str(1, 'alice'), str(2, 'u-1'), str(3, 'dev'), str(3, 'ops'), msg(4, str(1, 'scopes'), msg(2, str(1, 'a'), str(1, 'b'))), msg(4, str(1, 'none'), msg(2)))),
    ),
    want: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: {},
      status: { userInfo: { username: 'alice', uid: 'u-1', groups: ['dev', 'ops'], extra: { scopes: ['a', 'b'], none: [] } } },
    },
  },
  {
    name: 'unknown field numbers (all wire types) are skipped',
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    raw: cat(meta(str(1, 'sa'), int(99, 7), str(98, 'x')), cat(tag(50, 1), Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), cat(tag(51, 5), Uint8Array.from([1, 2, 3, 4])), bool(4, false)),
    want: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' }, automountServiceAccountToken: false },
  },
  {
    name: 'Node: taints, Quantity maps, the kubelet endpoint\'s "Port"',
    apiVersion: 'v1',
    kind: 'Node',
    raw: cat(
      meta(str(1, 'n1')),
      msg(2, bool(4, true), msg(5, str(1, 'k'), str(3, 'NoSchedule'))),
      msg(3, entry(1, 'cpu', cat(str(1, '4'))), msg(6, msg(1, int(1, 10250)))),
    ),
    want: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { capacity: { cpu: '4' }, daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } },
    },
  },
  {
    name: 'EndpointSlice: pointer conditions keep an explicit false',
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    raw: cat(meta(str(1, 's')), str(4, 'IPv4'), msg(2, str(1, '10.0.0.1'), msg(2, bool(1, false)))),
    want: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false } }] },
  },
  {
    name: 'ClusterRole: rules, and the aggregationRule selectors',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    raw: cat(
      meta(str(1, 'agg')),
      msg(2, str(1, 'get'), str(2, ''), str(3, 'pods'), str(3, 'pods/log'), str(4, 'one')),
      msg(2, str(1, 'get'), str(5, '/healthz')),
      msg(3, msg(1, entry(1, 'rbac.example.com/aggregate', 'true'))),
    ),
    want: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'agg' },
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['one'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
    },
  },
  {
    name: 'RoleBinding: roleRef and subjects, an empty ServiceAccount apiGroup omitted',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    raw: cat(
      meta(str(1, 'rb'), str(3, 'team')),
      msg(2, str(1, 'User'), str(2, 'rbac.authorization.k8s.io'), str(3, 'jane'), str(4, '')),
      msg(2, str(1, 'ServiceAccount'), str(2, ''), str(3, 'robot'), str(4, 'team')),
      msg(3, str(1, 'rbac.authorization.k8s.io'), str(2, 'Role'), str(3, 'pod-reader')),
    ),
    want: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'team' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
        { kind: 'ServiceAccount', name: 'robot', namespace: 'team' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    },
  },
  {
    name: 'CertificateSigningRequest: request bytes as base64, *int32 expirationSeconds, extra lists, condition times',
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    raw: cat(
      meta(str(1, 'csr-1')),
      msg(
        2,
        bytes(1, Buffer.from('PEM')),
        str(2, 'jane'),
        str(4, 'devs'),
        str(5, 'client auth'),
        msg(6, str(1, 'k'), msg(2, str(1, 'v1'), str(1, 'v2'))),
        str(7, 'kubernetes.io/kube-apiserver-client'),
        int(8, 86400),
      ),
      msg(3, msg(1, str(1, 'Approved'), str(2, 'KubectlApprove'), msg(4, int(1, 1764768000)), str(6, 'True')), bytes(2, Buffer.from('CERT'))),
    ),
    want: {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'csr-1' },
      spec: {
        request: 'UEVN',
        username: 'jane',
        groups: ['devs'],
        usages: ['client auth'],
        extra: { k: ['v1', 'v2'] },
        signerName: 'kubernetes.io/kube-apiserver-client',
        expirationSeconds: 86400,
      },
      status: { conditions: [{ type: 'Approved', reason: 'KubectlApprove', lastUpdateTime: '2025-12-03T13:20:00Z', status: 'True' }], certificate: 'Q0VSVA==' },
    },
  },
  {
    name: 'DeleteOptions under any group version',
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    raw: cat(int(1, 0), str(4, 'Foreground'), str(5, 'All')),
    want: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'] },
  },
];

describe('decodeProtobufObject', () => {
  it.each(cases)('$name', ({ apiVersion, kind, raw, want }) => {
    expect(decodeProtobufObject(envelope(apiVersion, kind, raw))).toEqual(want);
  });

  it('decodeBody dispatches on the protobuf media type (with parameters)', () => {
    const body = envelope('v1', 'Namespace', meta(str(1, 'x')));
    expect(decodeBody(`${PROTOBUF}; charset=binary`, body)).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
  });

  it.each([
    ['no k8s\\0 prefix', Buffer.from('{"kind":"Namespace"}'), 400, /expected prefix \[107 56 115 0\]/],
    ['empty envelope (no kind)', envelope('v1', '', new Uint8Array(0)), 400, /Kind/],
    ['truncated envelope', envelope('v1', 'Namespace', meta(str(1, 'foo'))).subarray(0, 12), 400, /protobuf request body/],
    ['truncated object', envelope('v1', 'Namespace', meta(str(1, 'foo')).subarray(0, 4)), 400, /protobuf request body/],
    ['wrong wire type for a string', envelope('v1', 'Namespace', msg(1, int(1, 5))), 400, /wire type 0, expected 2/],
    ['group wire type', envelope('v1', 'Namespace', cat(tag(9, 3))), 400, /unsupported wire type 3/],
    ['kind without a table', envelope('example.com/v1', 'Widget', meta(str(1, 'j'))), 415, /kind "Widget" \(apiVersion "example.com\/v1"\)/],
    ['encoded payload', envelope('v1', 'Namespace', meta(str(1, 'x')), 'gzip'), 415, /content encoding "gzip"/],
  ])('%s → %d', (_name, body, code, message) => {
    const s = statusOf(() => decodeBody(PROTOBUF, body));
    expect(s.code).toBe(code);
    expect(s.reason).toBe(code === 400 ? 'BadRequest' : 'UnsupportedMediaType');
    expect(s.message).toMatch(message);
  });

  it('random bytes after the prefix never escape as anything but a Status', () => {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const valid = envelope('apps/v1', 'Deployment', cat(meta(str(1, 'web'), entry(11, 'a', 'b')), msg(2, int(1, 2), msg(3, msg(2, msg(2, str(1, 'c')))))));
    for (let i = 0; i < 2000; i++) {
      const buf = Buffer.from(valid);
      // Flip a few bytes after the magic, or cut the body short.
      for (let j = 0; j < 1 + (i % 4); j++) buf[4 + (rnd() % (buf.length - 4))] = rnd();
      const body = i % 5 === 0 ? buf.subarray(0, 4 + (rnd() % (buf.length - 4))) : buf;
      try {
        decodeProtobufObject(body);
      } catch (e) {
        expect(e).toBeInstanceOf(StatusError);
        expect([400, 415]).toContain((e as StatusError).code);
      }
    }
  });
});

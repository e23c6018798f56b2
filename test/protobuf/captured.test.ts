// Bodies the real kubectl 1.32 sends: decoded from committed captures, and captured live (when the binary
// is present) by a tiny HTTP server that records each protobuf body and answers with the decoded JSON.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../../packages/apiserver/src/protobuf/index.ts';
import { findKubectl132, kubeconfigFor } from './kubectl-bin.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => Buffer.from(readFileSync(path.join(HERE, 'fixtures', `${name}.hex`), 'utf8').trim(), 'hex');

const labelsSvc = (name: string) => ({ name, labels: { app: name } });
const EXPECTED: Record<string, { cmd: string[]; path: string; want: Record<string, unknown> }> = {
  namespace: {
    cmd: ['create', 'namespace', 'foo'],
    path: '/api/v1/namespaces',
    want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' }, spec: {}, status: {} },
  },
  configmap: {
    cmd: ['create', 'configmap', 'cm1', '--from-literal=a=b', '--from-literal=c=d'],
    path: '/api/v1/namespaces/default/configmaps',
    want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: 'b', c: 'd' } },
  },
  secret: {
    cmd: ['create', 'secret', 'generic', 's1', '--from-literal=user=admin'],
    path: '/api/v1/namespaces/default/secrets',
    want: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { user: Buffer.from('admin').toString('base64') } },
  },
  serviceaccount: {
    cmd: ['create', 'serviceaccount', 'sa1'],
    path: '/api/v1/namespaces/default/serviceaccounts',
    want: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } },
  },
  deployment: {
    cmd: ['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '--port=80'],
    path: '/apis/apps/v1/namespaces/default/deployments',
    want: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }] } },
        strategy: {},
      },
      status: {},
    },
  },
  'service-clusterip': {
    cmd: ['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080'],
    path: '/api/v1/namespaces/default/services',
    want: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: labelsSvc('svc1'),
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' },
      status: { loadBalancer: {} },
    },
  },
  'service-nodeport': {
    cmd: ['create', 'service', 'nodeport', 'np1', '--tcp=80:8080', '--node-port=30080'],
    path: '/api/v1/namespaces/default/services',
    want: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: labelsSvc('np1'),
      spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }], selector: { app: 'np1' }, type: 'NodePort' },
      status: { loadBalancer: {} },
    },
  },
  priorityclass: {
    cmd: ['create', 'priorityclass', 'pc1', '--value=1000'],
    path: '/apis/scheduling.k8s.io/v1/priorityclasses',
    want: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc1' }, value: 1000, preemptionPolicy: 'PreemptLowerPriority' },
  },
};

describe('bodies captured from kubectl 1.32', () => {
  it.each(Object.entries(EXPECTED))('%s', (name, { want }) => {
    expect(decodeProtobufObject(fixture(name))).toEqual(want);
  });
  it('drain --disable-eviction --grace-period=7 sends DeleteOptions', () => {
    expect(decodeProtobufObject(fixture('deleteoptions'))).toEqual({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 7 });
  });
  it('create token sends a TokenRequest with an empty spec (the server picks audience and duration)', () => {
    expect(decodeProtobufObject(fixture('tokenrequest'))).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: {}, status: {} });
  });
  // The review bodies `kubectl auth …` posts (captured through a proxy in front of kube-apiserver).
  it.each([
    ['auth can-i create pods', 'selfsubjectaccessreview', { spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } }, status: {} }],
    ['auth can-i get /healthz', 'selfsubjectaccessreview-nonresource', { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } }, status: {} }],
  ])('%s sends a SelfSubjectAccessReview', (_cmd, name, want) => {
    expect(decodeProtobufObject(fixture(name))).toEqual({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, ...want });
  });
  it('auth whoami sends a SelfSubjectReview', () => {
    expect(decodeProtobufObject(fixture('selfsubjectreview'))).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } });
  });
  it('auth can-i --list sends a SelfSubjectRulesReview for the namespace', () => {
    expect(decodeProtobufObject(fixture('selfsubjectrulesreview'))).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: { namespace: 'default' },
      status: {},
    });
  });
});

const kubectl132 = findKubectl132();

describe.skipIf(!kubectl132)('live capture from kubectl 1.32', () => {
  let server: Server;
  let dir: string;
  const seen: { path: string; contentType: string; body: Buffer }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kemu-pb-capture-'));
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const u = new URL(req.url ?? '/', 'http://x');
        if (req.method !== 'POST') {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
          return;
        }
        seen.push({ path: u.pathname, contentType: req.headers['content-type'] ?? '', body });
        let reply: unknown;
        try {
          reply = decodeProtobufObject(body);
        } catch (e) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: String(e), code: 400 }));
          return;
        }
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    if (!addr || typeof addr === 'string') throw new Error('no port');
    writeFileSync(path.join(dir, 'kubeconfig'), kubeconfigFor(addr.port));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.entries(EXPECTED))('%s', async (_name, { cmd, path: wantPath, want }) => {
    seen.length = 0;
    const args = ['--kubeconfig', path.join(dir, 'kubeconfig'), '--cache-dir', path.join(dir, 'cache'), ...cmd];
    const out = await new Promise<{ err: Error | null; stdout: string; stderr: string }>((resolve) =>
      execFile(kubectl132 as string, args, { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => resolve({ err, stdout, stderr })),
    );
    expect(out.stderr).toBe('');
    expect(out.err).toBeNull();
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req?.path).toBe(wantPath);
    expect(req?.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(decodeProtobufObject(req?.body ?? Buffer.alloc(0))).toEqual(want);
  });
});

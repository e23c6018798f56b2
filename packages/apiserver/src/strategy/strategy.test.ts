import { describe, expect, it } from 'vitest';
import { R, RESOURCES, errors } from '@kemu/api';
import type { KubeObject, ResourceInfo, StatusCause } from '@kemu/api';
import { resourcesWithoutStrategy, strategyFor } from './index.ts';

/** What the generic registry does on create: defaults → prepareForCreate → validate. */
function create(r: ResourceInfo, obj: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const s = strategyFor(r);
  const o = structuredClone(obj);
  s.defaults?.(o);
  s.prepareForCreate?.(o);
  return { obj: o, causes: s.validate?.(o) ?? [] };
}

function update(r: ResourceInfo, next: KubeObject, old: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const s = strategyFor(r);
  const o = structuredClone(next);
  s.defaults?.(o);
  s.prepareForUpdate?.(o, old);
  return { obj: o, causes: s.validateUpdate?.(o, old) ?? [] };
}

const pod = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

const deployment = (spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
    ...spec,
  },
});

const messages = (causes: StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

describe('strategyFor', () => {
  it('has a dedicated strategy for every resource in the table', () => {
    expect(resourcesWithoutStrategy()).toEqual([]);
    for (const r of RESOURCES) expect(strategyFor(r).resource).toBe(r);
  });
});

describe('pods', () => {
  it('applies Kubernetes defaults and a Pending status with QoS on create', () => {
    const { obj, causes } = create(R.pods, { ...pod({ containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] }), status: { phase: 'Running' } });
    expect(causes).toEqual([]);
    const spec = obj.spec as Record<string, unknown>;
    expect(spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
    });
    expect((spec.containers as unknown[])[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: {},
    });
    expect(obj.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(obj.metadata.generation).toBeUndefined();
  });

  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['registry:5000/nginx', 'Always'],
    ['registry:5000/nginx:1', 'IfNotPresent'],
    ['nginx@sha256:abc', 'IfNotPresent'],
  ])('image %s → imagePullPolicy %s', (image, want) => {
    const { obj } = create(R.pods, pod({ containers: [{ name: 'c', image }] }));
    expect(((obj.spec as { containers: { imagePullPolicy: string }[] }).containers[0])?.imagePullPolicy).toBe(want);
  });

  it.each([
    [{ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }, 'Guaranteed'],
    [undefined, { cpu: '1', memory: '1Gi' }, 'Guaranteed'],
    [{ cpu: '100m' }, undefined, 'Burstable'],
    [{ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }, 'Burstable'],
  ])('QoS of requests %j limits %j is %s', (requests, limits, want) => {
    const resources: Record<string, unknown> = {};
    if (requests) resources.requests = requests;
    if (limits) resources.limits = limits;
    const { obj } = create(R.pods, pod({ containers: [{ name: 'c', image: 'x', resources }] }));
    expect((obj.status as { qosClass: string }).qosClass).toBe(want);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no containers', { containers: [] }, ['spec.containers: Required value']],
    ['no image', { containers: [{ name: 'c' }] }, ['spec.containers[0].image: Required value']],
    ['no name', { containers: [{ image: 'x' }] }, ['spec.containers[0].name: Required value']],
    [
      'bad container name',
      { containers: [{ name: 'Bad_Name', image: 'x' }] },
      [
        `spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      'duplicate names',
      { containers: [{ name: 'c', image: 'x' }, { name: 'c', image: 'y' }] },
      ['spec.containers[1].name: Duplicate value: "c"'],
    ],
    [
      'bad restartPolicy',
      { restartPolicy: 'Sometimes' },
      ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    ],
    [
      'bad port',
      { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 70000 }] }] },
      ['spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'],
    ],
    [
      'bad quantity',
      { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: 'lots' } } }] },
      [
        `spec.containers[0].resources.requests[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      ],
    ],
    [
      'probe without handler',
      { containers: [{ name: 'c', image: 'x', livenessProbe: { periodSeconds: 5 } }] },
      ['spec.containers[0].livenessProbe: Required value: must specify a handler type'],
    ],
    [
      'liveness successThreshold',
      { containers: [{ name: 'c', image: 'x', livenessProbe: { tcpSocket: { port: 80 }, successThreshold: 2 } }] },
      ['spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1'],
    ],
    [
      'two volume sources',
      { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] },
      ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type'],
    ],
    [
      'mount of an unknown volume',
      { containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'nope', mountPath: '/d' }] }] },
      ['spec.containers[0].volumeMounts[0].name: Not found: "nope"'],
    ],
    [
      'request above limit',
      { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] },
      ['spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ],
  ])('%s', (_name, spec, want) => {
    expect(messages(create(R.pods, pod(spec)).causes)).toEqual(want);
  });

  it('rejects a bad name with the subdomain message and the Invalid status text', () => {
    const p = pod();
    p.metadata.name = 'Web_1';
    const { causes } = create(R.pods, p);
    expect(causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      },
    ]);
    expect(errors.invalid('', 'Pod', 'Web_1', causes).message).toMatch(/^Pod "Web_1" is invalid: metadata.name: Invalid value: "Web_1": a lowercase/);
  });

  it('allows image changes and forbids other spec changes on update; keeps status', () => {
    const { obj: stored } = create(R.pods, pod());
    stored.status = { phase: 'Running' };
    const next = structuredClone(stored);
    (next.spec as { containers: { image: string }[] }).containers[0]!.image = 'nginx:2';
    next.status = { phase: 'Failed' };
    const ok = update(R.pods, next, stored);
    expect(ok.causes).toEqual([]);
    expect(ok.obj.status).toEqual({ phase: 'Running' });

    const bad = structuredClone(stored);
    (bad.spec as Record<string, unknown>).restartPolicy = 'Never';
    const res = update(R.pods, bad, stored);
    expect(res.causes).toHaveLength(1);
    expect(res.causes[0]).toMatchObject({ field: 'spec', reason: 'FieldValueForbidden' });
    expect(res.causes[0]?.message).toMatch(/^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);

    const tol = structuredClone(stored);
    (tol.spec as Record<string, unknown>).tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }];
    expect(update(R.pods, tol, stored).causes).toEqual([]);
  });

  it('/status keeps spec and owner references', () => {
    const { obj: stored } = create(R.pods, pod({ nodeName: 'node-1' }));
    stored.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u' }];
    const next = structuredClone(stored);
    (next.spec as Record<string, unknown>).nodeName = 'node-2';
    next.metadata.ownerReferences = [];
    next.status = { phase: 'Running', podIP: '10.0.0.1' };
    strategyFor(R.pods).prepareForStatusUpdate?.(next, stored);
    expect((next.spec as Record<string, unknown>).nodeName).toBe('node-1');
    expect(next.metadata.ownerReferences).toEqual(stored.metadata.ownerReferences);
    expect(next.status).toEqual({ phase: 'Running', podIP: '10.0.0.1' });
  });
});

describe('deployments', () => {
  it('applies defaults, generation 1 and empty status on create', () => {
    const { obj, causes } = create(R.deployments, { ...deployment(), status: { replicas: 5 } });
    expect(causes).toEqual([]);
    expect(obj.metadata.generation).toBe(1);
    expect(obj.status).toEqual({});
    expect(obj.spec).toMatchObject({
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: { spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 } },
    });
  });

  it('bumps generation on spec change only and keeps status', () => {
    const { obj: stored } = create(R.deployments, deployment());
    stored.status = { replicas: 1 };
    const same = structuredClone(stored);
    same.metadata.labels = { x: 'y' };
    expect(update(R.deployments, same, stored).obj.metadata.generation).toBe(1);
    const scaled = structuredClone(stored);
    (scaled.spec as Record<string, unknown>).replicas = 3;
    scaled.status = {};
    const res = update(R.deployments, scaled, stored);
    expect(res.obj.metadata.generation).toBe(2);
    expect(res.obj.status).toEqual({ replicas: 1 });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'selector mismatch',
      { selector: { matchLabels: { app: 'other' } } },
      ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`'],
    ],
    ['no selector', { selector: undefined }, ['spec.selector: Required value']],
    ['negative replicas', { replicas: -1 }, ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']],
    [
      'template restartPolicy',
      {
        template: { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } },
      },
      ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    ],
  ])('%s', (_name, spec, want) => {
    expect(messages(create(R.deployments, deployment(spec)).causes)).toEqual(want);
  });

  it('selector is immutable', () => {
    const { obj: stored } = create(R.deployments, deployment());
    const next = structuredClone(stored);
    (next.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web', v: '2' } };
    ((next.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels).v = '2';
    const causes = update(R.deployments, next, stored).causes;
    expect(causes).toHaveLength(1);
    expect(causes[0]?.field).toBe('spec.selector');
    expect(causes[0]?.message).toMatch(/: field is immutable$/);
  });
});

describe('services, namespaces, secrets', () => {
  const svc = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web', namespace: 'default' }, spec });

  it('defaults a service (ipFamilies and ipFamilyPolicy are the allocator\'s, which knows the ranges)', () => {
    const { obj, causes } = create(R.services, svc({ selector: { app: 'web' }, ports: [{ port: 80 }] }));
    expect(causes).toEqual([]);
    expect(obj.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }],
    });
    expect(obj.status).toEqual({ loadBalancer: {} });
  });

  it('clusterIP is immutable once set, and kept when omitted', () => {
    const { obj: stored } = create(R.services, svc({ ports: [{ port: 80 }], clusterIP: '10.96.0.10' }));
    const omitted = update(R.services, svc({ ports: [{ port: 80 }] }), stored);
    expect(omitted.causes).toEqual([]);
    expect((omitted.obj.spec as Record<string, unknown>).clusterIP).toBe('10.96.0.10');
    const changed = update(R.services, svc({ ports: [{ port: 80 }], clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }), stored);
    expect(messages(changed.causes)).toEqual(['spec.clusterIP: Invalid value: "10.96.0.11": field is immutable']);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no ports', {}, ['spec.ports: Required value']],
    ['bad type', { type: 'Magic', ports: [{ port: 80 }] }, ['spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']],
    ['unnamed ports', { ports: [{ port: 80 }, { port: 81 }] }, ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']],
    ['nodePort on ClusterIP', { ports: [{ port: 80, nodePort: 30001 }] }, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]],
  ])('service %s', (_n, spec, want) => {
    expect(messages(create(R.services, svc(spec)).causes)).toEqual(want);
  });

  it('namespace gets phase Active, the kubernetes finalizer and its name label', () => {
    const { obj, causes } = create(R.namespaces, { metadata: { name: 'team-a' } });
    expect(causes).toEqual([]);
    expect(obj.status).toEqual({ phase: 'Active' });
    expect(obj.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(obj.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(messages(create(R.namespaces, { metadata: { name: 'a.b' } }).causes)[0]).toMatch(/^metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label/);
  });

  it('secret defaults type Opaque and folds stringData', () => {
    const { obj, causes } = create(R.secrets, { metadata: { name: 's', namespace: 'd' }, stringData: { a: 'hi' } });
    expect(causes).toEqual([]);
    expect(obj).toMatchObject({ type: 'Opaque', data: { a: 'aGk=' } });
    expect(obj.stringData).toBeUndefined();
  });

  it('configmap keys are validated', () => {
    expect(messages(create(R.configmaps, { metadata: { name: 'c', namespace: 'd' }, data: { 'a b': 'x' } }).causes)[0]).toMatch(
      /^data: Invalid value: "a b": a valid config key must consist of alphanumeric characters/,
    );
  });

  it('labels and annotations are validated', () => {
    const big = 'x'.repeat(256 * 1024);
    const causes = create(R.configmaps, { metadata: { name: 'c', namespace: 'd', labels: { 'a/b/c': 'v', ok: 'bad value' }, annotations: { k: big } } }).causes;
    expect(messages(causes)).toEqual([
      `metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      'metadata.annotations: Too long: must have at most 262144 bytes',
    ]);
  });

  it('namespaced objects need a namespace', () => {
    expect(messages(create(R.leases, { metadata: { name: 'l' } }).causes)).toEqual(['metadata.namespace: Required value']);
  });
});

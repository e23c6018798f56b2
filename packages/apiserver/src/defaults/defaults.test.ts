import { describe, expect, it } from 'vitest';
import { defaultPod, defaultPullPolicy, podQOSClass } from './pod.ts';
import { defaultDeployment, defaultReplicaSet } from './apps.ts';
import { defaultEndpointSlice, defaultNamespace, defaultNode, defaultPriorityClass, defaultSecret, defaultService } from './core.ts';

type Obj = Record<string, unknown>;

describe('pod defaults', () => {
  it('fills probes, volumes, env fieldRefs, host ports and requests from limits', () => {
    const pod: Obj = {
      metadata: { name: 'p' },
      spec: {
        hostNetwork: true,
        serviceAccount: 'legacy',
        volumes: [{ name: 'a' }, { name: 'cm', configMap: { name: 'x' } }],
        containers: [
          {
            name: 'c',
            image: 'nginx:1',
            ports: [{ containerPort: 8080 }],
            env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            livenessProbe: { httpGet: { port: 8080 } },
            resources: { limits: { cpu: '1', memory: '1Gi' } },
          },
        ],
      },
    };
    defaultPod(pod);
    const spec = pod.spec as Obj;
    expect(spec.serviceAccountName).toBe('legacy');
    expect(spec.volumes).toEqual([
      { name: 'a', emptyDir: {} },
      { name: 'cm', configMap: { name: 'x', defaultMode: 420 } },
    ]);
    const c = (spec.containers as Obj[])[0] as Obj;
    expect(c.ports).toEqual([{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
    expect(c.env).toEqual([{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } }]);
    expect(c.livenessProbe).toEqual({ httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    expect(c.resources).toEqual({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } });
    expect(podQOSClass(spec)).toBe('Guaranteed');
  });

  it('keeps what the client set', () => {
    const pod: Obj = { spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Never' }] } };
    defaultPod(pod);
    expect(pod.spec).toMatchObject({ restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ imagePullPolicy: 'Never' }] });
  });

  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['localhost:5000/busybox', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['busybox@sha256:0123', 'IfNotPresent'],
  ])('pull policy of %s is %s', (image, want) => expect(defaultPullPolicy(image)).toBe(want));
});

describe('other defaults', () => {
  it('deployment keeps an explicit Recreate strategy without rollingUpdate', () => {
    const d: Obj = { spec: { replicas: 0, strategy: { type: 'Recreate' }, template: { spec: { containers: [] } } } };
    defaultDeployment(d);
    expect(d.spec).toMatchObject({ replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect((d.spec as { strategy: Obj }).strategy.rollingUpdate).toBeUndefined();
    const template = (d.spec as { template: { spec: Obj } }).template.spec;
    expect(template.enableServiceLinks).toBeUndefined();
    expect(template.schedulerName).toBe('default-scheduler');
  });

  it('replicaset replicas default to 1', () => {
    const rs: Obj = { spec: {} };
    defaultReplicaSet(rs);
    expect(rs.spec).toEqual({ replicas: 1 });
  });

  it.each<[string, Obj, Obj]>([
    ['ClientIP affinity', { sessionAffinity: 'ClientIP', ports: [{ port: 53, protocol: 'UDP' }] }, { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, ports: [{ port: 53, protocol: 'UDP', targetPort: 53 }] }],
    ['NodePort', { type: 'NodePort', ports: [{ port: 80, targetPort: 'http' }] }, { externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, targetPort: 'http', protocol: 'TCP' }] }],
    ['LoadBalancer', { type: 'LoadBalancer', ports: [] }, { allocateLoadBalancerNodePorts: true, externalTrafficPolicy: 'Cluster' }],
    ['ExternalName', { type: 'ExternalName', externalName: 'x.example.com' }, { sessionAffinity: 'None' }],
  ])('service %s', (_n, spec, want) => {
    const svc: Obj = { spec };
    defaultService(svc);
    expect(svc.spec).toMatchObject(want);
    if (spec.type === 'ExternalName') expect((svc.spec as Obj).internalTrafficPolicy).toBeUndefined();
  });

  it('namespace label, node allocatable, secret type, slice ports, priority class policy', () => {
    const ns: Obj = { metadata: { name: 'x', labels: { a: 'b' } } };
    defaultNamespace(ns);
    expect((ns.metadata as Obj).labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': 'x' });
    const node: Obj = { status: { capacity: { cpu: '2' } } };
    defaultNode(node);
    expect((node.status as Obj).allocatable).toEqual({ cpu: '2' });
    const s: Obj = {};
    defaultSecret(s);
    expect(s.type).toBe('Opaque');
    const es: Obj = { ports: [{ port: 80 }] };
    defaultEndpointSlice(es);
    expect(es.ports).toEqual([{ port: 80, protocol: 'TCP', name: '' }]);
    const pc: Obj = { value: 1 };
    defaultPriorityClass(pc);
    expect(pc.preemptionPolicy).toBe('PreemptLowerPriority');
  });
});

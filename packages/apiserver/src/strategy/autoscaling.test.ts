// HorizontalPodAutoscalers through the REST API: autoscaling/v2 defaults and validation messages, autoscaling/v1
// as a conversion of the same objects (targetCPUUtilizationPercentage ⇄ a cpu Utilization metric, the rest in
// annotations), and kubectl's Table columns.
import { describe, expect, it } from 'vitest';
import { memoryServerFixture } from '../testing/memory-server-fixture.ts';

const { call } = memoryServerFixture();

const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
type Json = Record<string, any>;

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'php-apache' };

describe('autoscaling/v2 HorizontalPodAutoscaler', () => {
  it('is defaulted as Kubernetes does: minReplicas 1, 80% CPU, a given behavior completed', async () => {
    const r = await call('POST', V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'd1' }, spec: { scaleTargetRef: ref, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }, status: { desiredReplicas: 9 } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      behavior: {
        scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
        scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      },
    });
    expect(r.body.status).toEqual({ desiredReplicas: 0 });
  });

  it('refuses bad specs with validation.go messages', async () => {
    const r = await call('POST', V2, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'bad' },
      spec: {
        scaleTargetRef: { kind: 'Deployment' },
        minReplicas: 3,
        maxReplicas: 2,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }, { type: 'Pods' }],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 0, periodSeconds: 1801 }] } },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'HorizontalPodAutoscaler.autoscaling "bad" is invalid: [spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`, ' +
        'spec.scaleTargetRef.name: Required value, spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0, ' +
        'spec.metrics[1].pods: Required value: must populate information for the given metric source, ' +
        'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero, ' +
        'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800]',
    );
  });

  it('checks each metric source as validateMetricSpec does', async () => {
    const r = await call('POST', V2, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'metrics' },
      spec: {
        scaleTargetRef: ref,
        maxReplicas: 3,
        metrics: [
          { type: 'Bogus' },
          { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '5', averageValue: '1' } } },
          { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'App_1', target: { type: 'Percent' } } },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`)).toEqual([
      'spec.metrics[0].type: Unsupported value: "Bogus": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[1].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target',
      'spec.metrics[2].containerResource.container: Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.metrics[2].containerResource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
      'spec.metrics[2].containerResource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
    ]);
  });

  it('prints NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE with <unknown> before metrics', async () => {
    await call('POST', V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'tbl' }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] } });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const t = await call('GET', `${V2}/tbl`, undefined, 'application/json', accept);
    expect(t.body.columnDefinitions.map((c: Json) => c.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    expect(t.body.rows[0].cells.slice(0, 6)).toEqual(['tbl', 'Deployment/php-apache', 'cpu: <unknown>/50%', '1', 10, 0]);
    const st = await call('PATCH', `${V2}/tbl/status`, { status: { currentReplicas: 3, desiredReplicas: 5, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 250, averageValue: '500m' } } }] } }, 'application/merge-patch+json');
    expect(st.status).toBe(200);
    const t2 = await call('GET', `${V1}/tbl`, undefined, 'application/json', accept);
    expect(t2.body.rows[0].cells.slice(0, 6)).toEqual(['tbl', 'Deployment/php-apache', 'cpu: 250%/50%', '1', 10, 3]);
  });
});

describe('autoscaling/v1 as a view of autoscaling/v2', () => {
  it('a v1 object (kubectl autoscale) is stored as a cpu Utilization metric and read back through both', async () => {
    const r = await call('POST', V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'php-apache' }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ apiVersion: 'autoscaling/v1', spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 0, desiredReplicas: 0 } });
    expect(r.body.metadata.annotations).toBeUndefined();
    const v2 = await call('GET', `${V2}/php-apache`);
    expect(v2.body.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    expect(v2.body.metadata.resourceVersion).toBe(r.body.metadata.resourceVersion);
  });

  it('v2 fields v1 lacks ride in annotations and survive a v1 update', async () => {
    const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } };
    await call('POST', V2, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'two' }, spec: { scaleTargetRef: ref, maxReplicas: 4, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }, memory] } });
    const v1 = await call('GET', `${V1}/two`);
    expect(v1.body.spec.targetCPUUtilizationPercentage).toBe(60);
    expect(JSON.parse(v1.body.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '100Mi' } }]);
    v1.body.spec.maxReplicas = 6;
    const put = await call('PUT', `${V1}/two`, v1.body);
    expect(put.status).toBe(200);
    const v2 = await call('GET', `${V2}/two`);
    expect(v2.body.spec.maxReplicas).toBe(6);
    expect(v2.body.spec.metrics).toEqual([memory, { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    expect(v2.body.metadata.annotations).toBeUndefined();
  });

  it('validates v1 objects as their v2 form', async () => {
    const r = await call('POST', V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'zero' }, spec: { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 0 } });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.minReplicas: Invalid value: 0: must be greater than or equal to 1');
    expect(r.body.message).toContain('spec.maxReplicas: Invalid value: 0: must be greater than 0');
  });

  it('discovery prefers v2 and serves both with the short name hpa', async () => {
    const g = await call('GET', '/apis/autoscaling');
    expect(g.body.preferredVersion).toEqual({ groupVersion: 'autoscaling/v2', version: 'v2' });
    expect(g.body.versions.map((v: Json) => v.version)).toEqual(['v2', 'v1']);
    const list = await call('GET', '/apis/autoscaling/v1');
    expect(list.body.resources.find((r: Json) => r.name === 'horizontalpodautoscalers')).toMatchObject({ shortNames: ['hpa'], kind: 'HorizontalPodAutoscaler' });
  });
});

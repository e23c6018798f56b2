// ValidatingAdmissionPolicy through the REST API (fastify.inject): the kubernetes.io "replicas ≤ 5" example,
// Warn and Audit actions, a ConfigMap param, messageExpression and reason, type checking in status, and a
// runaway expression bounded by cost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { R, type KubeObject } from '@kemu/api';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { validatingAdmissionPolicyPlugin, VALIDATION_FAILURE_ANNOTATION } from './validating-admission-policy.ts';
import type { AdmissionAttributes } from './types.ts';
import type { AuditEvent } from '../audit/event.ts';
import { parsePolicy } from '../audit/policy.ts';

let srv: ApiServer;
beforeAll(async () => {
  srv = await startMemoryApiServer();
});
afterAll(async () => srv?.close());

type Body = KubeObject & { message?: string; reason?: string; code?: number; details?: { causes?: { message: string }[] }; status?: Record<string, unknown> };
async function call(method: 'POST' | 'PUT' | 'DELETE' | 'GET', url: string, body?: unknown) {
  const r = await srv.app.inject({ method, url, headers: { 'content-type': 'application/json' }, ...(body ? { payload: JSON.stringify(body) } : {}) });
  return { status: r.statusCode, body: r.json() as Body, warning: r.headers.warning };
}
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

const deployment = (name: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
  },
});
const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
const binding = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
const DEPLOYMENT_RULES = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

/** Creates until the plugin's view of policies has caught up (the watch cache follows writes shortly). */
async function createUntil(ns: string, obj: unknown, until: (r: Awaited<ReturnType<typeof call>>) => boolean) {
  return waitFor('policy in effect', async () => {
    const r = await call('POST', `/apis/apps/v1/namespaces/${ns}/deployments?dryRun=All`, obj);
    return until(r) ? r : undefined;
  });
}

describe('ValidatingAdmissionPolicy', () => {
  it('denies a Deployment of 6 replicas in a namespace labelled environment=test (the kubernetes.io example)', async () => {
    expect((await call('POST', '/api/v1/namespaces', { metadata: { name: 'test', labels: { environment: 'test' } } })).status).toBe(201);
    const p = await call('POST', VAP, policy('demo-policy.example.com', { failurePolicy: 'Fail', matchConstraints: DEPLOYMENT_RULES, validations: [{ expression: 'object.spec.replicas <= 5' }] }));
    expect(p.status).toBe(201);
    expect(p.body.status).toEqual({ observedGeneration: 1, typeChecking: {} });
    const b = await call(
      'POST',
      VAPB,
      binding('demo-binding-test.example.com', { policyName: 'demo-policy.example.com', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } } }),
    );
    expect(b.status).toBe(201);
    const denied = await createUntil('test', deployment('nginx', 6), (r) => r.status !== 201);
    const msg = "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5";
    expect(denied.status).toBe(422);
    expect(denied.body).toMatchObject({ reason: 'Invalid', message: `deployments.apps "nginx" is forbidden: ${msg}`, details: { name: 'nginx', group: 'apps', kind: 'deployments', causes: [{ message: msg }] } });
    expect((await call('POST', '/apis/apps/v1/namespaces/test/deployments', deployment('nginx', 5))).status).toBe(201);
    // Outside the selected namespace the binding does not apply.
    expect((await call('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('big', 6))).status).toBe(201);
  });

  it('reports type-checking warnings against the matched kinds in status, without refusing the policy', async () => {
    const p = await call(
      'POST',
      VAP,
      policy('typo', {
        matchConstraints: DEPLOYMENT_RULES,
        validations: [
          { expression: 'object.spec.replicass > 1' },
          { expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('nginx'))", messageExpression: 'object.spec.replicas' },
        ],
      }),
    );
    expect(p.status).toBe(201);
    const warnings = (p.body.status?.typeChecking as { expressionWarnings?: { fieldRef: string; warning: string }[] }).expressionWarnings;
    expect(warnings?.map((w) => w.fieldRef)).toEqual(['spec.validations[0].expression', 'spec.validations[1].messageExpression']);
    expect(warnings?.[0]?.warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: <input>:1:\d+: .*replicass\n \| object\.spec\.replicass > 1\n \| \.+\^$/);
    expect(warnings?.[1]?.warning).toBe('apps/v1, Kind=Deployment: ERROR: <input>:1:1: must evaluate to string, but got int');
    expect(p.body.status?.observedGeneration).toBe(1);
    await call('DELETE', `${VAP}/typo`);
  });

  it('refuses invalid policies and bindings with Kubernetes field errors', async () => {
    const p = await call('POST', VAP, policy('bad', { matchConstraints: { resourceRules: [] }, validations: [{ expression: 'object.spec.replicas <=' }] }));
    expect(p.status).toBe(422);
    const fields = p.body.details?.causes?.map((c) => (c as { field?: string }).field);
    expect(fields).toEqual(['spec.matchConstraints.resourceRules', 'spec.validations[0].expression']);
    const b = await call('POST', VAPB, binding('bad', { policyName: 'x', validationActions: ['Deny', 'Warn'] }));
    expect(b.status).toBe(422);
    expect(b.body.message).toContain('must not contain both Deny and Warn');
  });

  it('warns with Warn, uses messageExpression and a ConfigMap param', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'replica-limit' }, data: { maxReplicas: '3' } });
    const p = await call(
      'POST',
      VAP,
      policy('max-replicas', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: DEPLOYMENT_RULES,
        variables: [{ name: 'max', expression: 'int(params.data.maxReplicas)' }],
        validations: [{ expression: 'object.spec.replicas <= variables.max', messageExpression: "'replicas must be at most ' + string(variables.max)", reason: 'Forbidden' }],
      }),
    );
    expect(p.status).toBe(201);
    const b = await call('POST', VAPB, binding('max-replicas-warn', { policyName: 'max-replicas', validationActions: ['Warn'], paramRef: { name: 'replica-limit', namespace: 'default', parameterNotFoundAction: 'Deny' } }));
    expect(b.status).toBe(201);
    const r = await createUntil('default', deployment('four', 4), (x) => x.warning !== undefined);
    expect(r.status).toBe(201);
    expect(r.warning).toContain("Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-warn': replicas must be at most 3");
    // Deny with the validation's reason: 403 Forbidden.
    await call('POST', VAPB, binding('max-replicas-deny', { policyName: 'max-replicas', validationActions: ['Deny'], paramRef: { name: 'replica-limit', parameterNotFoundAction: 'Deny' } }));
    const d = await createUntil('default', deployment('four', 4), (x) => x.status !== 201);
    expect(d.status).toBe(403);
    expect(d.body.message).toBe("deployments.apps \"four\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-deny' denied request: replicas must be at most 3");
    // A namespace without the param: parameterNotFoundAction Deny, failurePolicy Fail.
    const missing = await call('POST', '/apis/apps/v1/namespaces/test/deployments?dryRun=All', deployment('one', 1));
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    await call('DELETE', `${VAPB}/max-replicas-deny`);
    await call('DELETE', `${VAPB}/max-replicas-warn`);
  });

  it('bounds a runaway expression: cost exceeded, enforced by failurePolicy', async () => {
    const p = await call(
      'POST',
      VAP,
      policy('runaway', {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'object.data.all(a, object.data.all(b, object.data.all(c, object.data.all(d, a + b + c + d != ""))))' }],
      }),
    );
    expect(p.status).toBe(201);
    await call('POST', VAPB, binding('runaway', { policyName: 'runaway', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { runaway: 'yes' } } } }));
    const data = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v']));
    const t0 = performance.now();
    const r = await waitFor('runaway policy in effect', async () => {
      const x = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'big', labels: { runaway: 'yes' } }, data });
      return x.status !== 201 ? x : undefined;
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('resulted in error: operation cancelled: actual cost limit exceeded');
    expect(performance.now() - t0).toBeLessThan(10_000);
    // Unlabelled ConfigMaps are not matched by the binding.
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'small' }, data })).status).toBe(201);
  });
});

describe('ValidatingAdmissionPolicy plugin (in-process)', () => {
  it('Audit records the failure and auditAnnotations in the audit event, without denying', async () => {
    const pol = policy('audited', {
      matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] },
      validations: [{ expression: "object.metadata.name != 'bad'", message: 'name must not be bad' }],
      auditAnnotations: [{ key: 'name', valueExpression: "'name is ' + object.metadata.name" }],
    }) as unknown as KubeObject;
    pol.metadata.uid = 'u1';
    pol.metadata.resourceVersion = '1';
    const bind = binding('audited-binding', { policyName: 'audited', validationActions: ['Audit'] }) as unknown as KubeObject;
    const annotations: Record<string, string> = {};
    const warnings: string[] = [];
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      resource: R.configmaps,
      namespace: 'default',
      name: 'bad',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', namespace: 'default' } },
      dryRun: false,
      warn: (t) => warnings.push(t),
      annotate: (k, v) => (annotations[k] = v),
    };
    await validatingAdmissionPolicyPlugin.validate!(attrs, {
      listObjects: async (r) => (r === R.validatingadmissionpolicies ? [pol] : r === R.validatingadmissionpolicybindings ? [bind] : []),
      getNamespace: async () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }),
    });
    expect(warnings).toEqual([]);
    expect(annotations['audited/name']).toBe('name is bad');
    expect(JSON.parse(annotations[VALIDATION_FAILURE_ANNOTATION]!)).toEqual([
      { message: 'name must not be bad', policy: 'audited', binding: 'audited-binding', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
  });
});

describe('ValidatingAdmissionPolicy audit annotations through the request pipeline', () => {
  it('lands the Audit failure and auditAnnotations in the request\'s audit event', async () => {
    const events: AuditEvent[] = [];
    const auditPolicy = parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: [configmaps]}]\n');
    const s2 = await startMemoryApiServer({ audit: { policy: auditPolicy, sink: { write: (l) => events.push(JSON.parse(l) as AuditEvent), close: () => undefined }, format: 'json' } });
    try {
      const post = (url: string, body: unknown) => s2.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      await post(
        VAP,
        policy('cm-audit', {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          validations: [{ expression: "!object.metadata.name.startsWith('bad')", message: 'no bad names' }],
          auditAnnotations: [{ key: 'owner', valueExpression: "'cm ' + object.metadata.name" }],
        }),
      );
      await post(VAPB, binding('cm-audit', { policyName: 'cm-audit', validationActions: ['Audit'] }));
      const ev = await waitFor('audited event', async () => {
        const name = `bad-${events.length}`;
        const r = await post('/api/v1/namespaces/default/configmaps', { metadata: { name } });
        expect(r.statusCode).toBe(201);
        return events.find((e) => e.objectRef?.name === name && e.stage === 'ResponseComplete' && e.annotations?.[VALIDATION_FAILURE_ANNOTATION]);
      });
      const name = ev.objectRef?.name ?? '';
      expect(ev.annotations?.['cm-audit/owner']).toBe(`cm ${name}`);
      expect(JSON.parse(ev.annotations![VALIDATION_FAILURE_ANNOTATION]!)).toEqual([{ message: 'no bad names', policy: 'cm-audit', binding: 'cm-audit', expressionIndex: 0, validationActions: ['Audit'] }]);
    } finally {
      await s2.close();
    }
  });
});

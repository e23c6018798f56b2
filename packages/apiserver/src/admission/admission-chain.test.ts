// The chain as a client sees it through the server: order, flags' plugin lists, warnings and refusals.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { admissionChain } from './plugins.ts';

let srv: ApiServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const nginx = (name = 'x', extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'nginx', image: 'nginx', ...extra }] } });

async function post(s: ApiServer, url: string, body: unknown) {
  const r = await s.app.inject({ method: 'POST', url, payload: body as Record<string, unknown> });
  return { code: r.statusCode, body: r.json() as { message?: string; spec?: { containers: Array<{ imagePullPolicy?: string }> } }, warning: r.headers.warning };
}

async function namespace(s: ApiServer, name: string, labels: Record<string, string>) {
  expect((await post(s, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })).code).toBe(201);
}

const RESTRICTED =
  'PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('admission chain through the server', () => {
  it('PodSecurity is on by default: enforce refuses with 403, warn admits with a Warning header', async () => {
    srv = await startMemoryApiServer();
    await namespace(srv, 'locked', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await namespace(srv, 'warned', { 'pod-security.kubernetes.io/warn': 'restricted' });
    const refused = await post(srv, '/api/v1/namespaces/locked/pods', nginx());
    expect(refused.code).toBe(403);
    expect(refused.body.message).toBe(`pods "x" is forbidden: violates ${RESTRICTED}`);
    const warned = await post(srv, '/api/v1/namespaces/warned/pods', nginx());
    expect(warned.code).toBe(201);
    expect(warned.warning).toBe(`299 - ${JSON.stringify(`would violate ${RESTRICTED}`)}`);
  });

  it('a refusal carries the warning of a stricter warn level, as Kubernetes sends both', async () => {
    srv = await startMemoryApiServer({ allowPrivileged: true });
    await namespace(srv, 'mixed', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted' });
    const r = await post(srv, '/api/v1/namespaces/mixed/pods', nginx('x', { securityContext: { privileged: true } }));
    expect(r.code).toBe(403);
    expect(r.body.message).toBe('pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "nginx" must not set securityContext.privileged=true)');
    expect(r.warning).toMatch(/^299 - "would violate PodSecurity \\"restricted:latest\\": privileged \(container \\"nginx\\" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
  });

  it('validation runs before validating admission: an invalid pod is 422, not a PodSecurity 403', async () => {
    srv = await startMemoryApiServer();
    await namespace(srv, 'locked', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const r = await post(srv, '/api/v1/namespaces/locked/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [] } });
    expect(r.code).toBe(422);
  });

  it('NamespaceLifecycle comes first: a missing namespace is 404, a system namespace may not be deleted', async () => {
    srv = await startMemoryApiServer();
    expect((await post(srv, '/api/v1/namespaces/nope/pods', nginx())).code).toBe(404);
    const del = await srv.app.inject({ method: 'DELETE', url: '/api/v1/namespaces/default' });
    expect(del.statusCode).toBe(403);
    expect((del.json() as { message: string }).message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('the flags choose the plugins: AlwaysPullImages enabled, PodSecurity disabled', async () => {
    srv = await startMemoryApiServer({ admissionPlugins: admissionChain(['AlwaysPullImages'], ['PodSecurity']).plugins });
    await namespace(srv, 'locked', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const r = await post(srv, '/api/v1/namespaces/locked/pods', nginx('x', { imagePullPolicy: 'IfNotPresent' }));
    expect(r.code).toBe(201);
    expect(r.body.spec?.containers[0]?.imagePullPolicy).toBe('Always');
  });

  it('--allow-privileged=false (the default) refuses privileged containers; true admits them', async () => {
    srv = await startMemoryApiServer();
    const privileged = nginx('p', { securityContext: { privileged: true } });
    const r = await post(srv, '/api/v1/namespaces/default/pods', privileged);
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Pod "p" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    const d = await post(srv, '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: privileged.spec } },
    });
    expect(d.code).toBe(422);
    expect(d.body.message).toContain('spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy');
    await srv.close();
    srv = await startMemoryApiServer({ allowPrivileged: true });
    expect((await post(srv, '/api/v1/namespaces/default/pods', privileged)).code).toBe(201);
  });
});

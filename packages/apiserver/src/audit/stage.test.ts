import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiServer, type ApiServer } from '../server.ts';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import type { AuditEvent } from './event.ts';
import type { LineSink } from './log-writer.ts';
import { parsePolicy, type Level } from './policy.ts';

const policyAt = (level: Level) =>
  parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz*"]
- level: ${level}
  resources: [{group: "", resources: [configmaps]}]
`);

async function serverAt(level: Level): Promise<{ srv: ApiServer; url: string; events: AuditEvent[] }> {
  const events: AuditEvent[] = [];
  const sink: LineSink = { write: (l) => events.push(JSON.parse(l) as AuditEvent), close: () => undefined };
  const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), audit: { policy: policyAt(level), sink, format: 'json' } });
  await srv.start();
  await ensureSystemNamespaces(srv.ctx.registry);
  await srv.app.listen({ port: 0, host: '127.0.0.1' });
  return { srv, url: `http://127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`, events };
}

const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } };

describe.each(['Metadata', 'Request', 'RequestResponse'] as const)('audit events at level %s', (level) => {
  let s: Awaited<ReturnType<typeof serverAt>>;
  beforeAll(async () => {
    s = await serverAt(level);
  });
  afterAll(async () => {
    await s.srv.close();
  });
  const byId = (id: string | null) => s.events.filter((e) => e.auditID === id);

  it('create: RequestReceived then ResponseComplete with objectRef named from the body', async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'audit-test/1' }, body: JSON.stringify(CM) });
    expect(res.status).toBe(201);
    const id = res.headers.get('audit-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await vi.waitFor(() => expect(byId(id).map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']));
    const [rr, rc] = byId(id) as [AuditEvent, AuditEvent];
    expect(rr).toMatchObject({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', level, verb: 'create', requestURI: '/api/v1/namespaces/default/configmaps', userAgent: 'audit-test/1', user: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] }, sourceIPs: ['127.0.0.1'], objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' } });
    expect(rr.responseStatus).toBeUndefined();
    expect(rr.requestObject).toBeUndefined();
    expect(rc.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', name: 'c1', apiVersion: 'v1' });
    expect(rc.responseStatus).toEqual({ metadata: {}, code: 201 });
    expect(rc.requestObject !== undefined).toBe(level !== 'Metadata');
    expect(rc.responseObject !== undefined).toBe(level === 'RequestResponse');
    if (level === 'RequestResponse') expect(rc.responseObject).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' } });
    expect(rc.stageTimestamp >= rc.requestReceivedTimestamp).toBe(true);
    expect(rc.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(Object.keys(rc)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', ...(level === 'Metadata' ? [] : ['requestObject']), ...(level === 'RequestResponse' ? ['responseObject'] : []), 'requestReceivedTimestamp', 'stageTimestamp']);
  });

  it('a 404 get records the Status reason and message; a given Audit-ID is kept', async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps/missing`, { headers: { 'audit-id': 'my-audit-id' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('audit-id')).toBe('my-audit-id');
    await vi.waitFor(() => expect(byId('my-audit-id').map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']));
    const rc = byId('my-audit-id')[1] as AuditEvent;
    expect(rc.verb).toBe('get');
    expect(rc.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', name: 'missing', apiVersion: 'v1' });
    expect(rc.responseStatus).toMatchObject({ metadata: {}, status: 'Failure', reason: 'NotFound', message: 'configmaps "missing" not found', code: 404 });
    expect(rc.responseObject !== undefined).toBe(level === 'RequestResponse');
  });

  it('a watch: RequestReceived, ResponseStarted when it starts, ResponseComplete when it ends', async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`);
    expect(res.status).toBe(200);
    const id = res.headers.get('audit-id');
    await vi.waitFor(() => expect(byId(id).map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted']));
    await res.text();
    await vi.waitFor(() => expect(byId(id).map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']), { timeout: 5000 });
    for (const e of byId(id).slice(1)) expect(e).toMatchObject({ verb: 'watch', responseStatus: { metadata: {}, code: 200 } });
  });

  it('None-level requests leave no event but still carry an Audit-Id', async () => {
    const before = s.events.length;
    const res = await fetch(`${s.url}/readyz`);
    expect(res.headers.get('audit-id')).toMatch(/^[0-9a-f-]{36}$/);
    const ns = await fetch(`${s.url}/api/v1/namespaces/default`);
    expect(ns.status).toBe(200);
    expect(s.events.length).toBe(before);
    const odd = await s.srv.app.inject({ method: 'GET', url: '/readyz', headers: { 'audit-id': 'caf\u00e9' } });
    expect(odd.statusCode).toBe(200);
    expect(odd.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('omitManagedFields', () => {
  it('leaves metadata.managedFields out of logged objects, not out of the response', async () => {
    const events: AuditEvent[] = [];
    const sink: LineSink = { write: (l) => events.push(JSON.parse(l) as AuditEvent), close: () => undefined };
    const policy = parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nomitManagedFields: true\nomitStages: [RequestReceived]\nrules:\n- level: RequestResponse\n  resources: [{group: "", resources: [configmaps]}]\n');
    const srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger(), audit: { policy, sink, format: 'json' } });
    try {
      await srv.start();
      await ensureSystemNamespaces(srv.ctx.registry);
      const res = await srv.app.inject({ method: 'POST', url: '/api/v1/namespaces/default/configmaps?fieldManager=me', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(CM) });
      expect(res.statusCode).toBe(201);
      expect((res.json() as { metadata: { managedFields?: unknown[] } }).metadata.managedFields).toHaveLength(1);
      await vi.waitFor(() => expect(events.map((e) => e.stage)).toEqual(['ResponseComplete']));
      const ev = events[0] as AuditEvent;
      expect(ev.responseObject).toMatchObject({ metadata: { name: 'c1' } });
      expect((ev.responseObject as { metadata: Record<string, unknown> }).metadata.managedFields).toBeUndefined();
      expect(ev.requestObject).toEqual(CM);
    } finally {
      await srv.close();
    }
  });
});

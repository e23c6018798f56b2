// API aggregation in process: the local APIServices (built-in and CRD groups) with Kubernetes' priorities and
// Available=True Local; APIService validation; the Available condition of a remote one through ServiceNotFound,
// MissingEndpoints and Passed against a stub aggregated server; requests proxied to it with the caller in
// X-Remote-* headers and the front-proxy client certificate, a watch streamed through; its resources merged
// into discovery; its OpenAPI merged into /openapi/v2 and /openapi/v3; and with the stub down, 503 and
// FailedDiscoveryCheck.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, generatePrivateKey, issueCertificate } from '@kemu/pki';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { injectClient, until, type Body } from '../testing/inject-client.ts';
import { startAggregatedServer, WARDLE_GROUP, type AggregatedServer } from '../testing/aggregated-server.ts';
import { makeCa } from '../authn/testing/certs.ts';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const FLUNDERS = `/apis/${WARDLE_GROUP}/v1alpha1/namespaces/default/flunders`;
const WAIT = 20_000;

let srv: ApiServer;
let stub: AggregatedServer;
const call = injectClient(() => srv);
const asAlice = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  srv.app.inject({ method, url, headers: { authorization: 'Bearer alice', 'content-type': 'application/json' }, ...(body ? { payload: JSON.stringify(body) } : {}) });

let port: number | undefined;
/** The server on a loopback port (once), for what inject cannot do: streams and upgrades. */
const listening = async (): Promise<number> => {
  if (port === undefined) {
    await srv.app.listen({ host: '127.0.0.1', port: 0 });
    port = (srv.app.server.address() as AddressInfo).port;
  }
  return port;
};
const wsAsAlice = async (path: string, protocols: string[] = []) => new WebSocket(`ws://127.0.0.1:${await listening()}${path}`, protocols, { headers: { authorization: 'Bearer alice' } });
/** The status and body of an upgrade that was answered without switching protocols. */
const refusedUpgrade = (ws: WebSocket) =>
  new Promise<{ code: number; body: string; type: string }>((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type']) }));
    });
    ws.once('open', () => reject(new Error('upgraded')));
    ws.once('error', reject);
  });
const nextMessage = (ws: WebSocket) =>
  new Promise<{ data: Buffer; binary: boolean }>((resolve, reject) => {
    ws.once('message', (data, binary) => resolve({ data: data as Buffer, binary }));
    ws.once('error', reject);
  });

const available = async (name: string): Promise<Body | undefined> => {
  const r = await call('GET', `${APISERVICES}/${name}`);
  return (r.body.status?.conditions ?? []).find((c: Body) => c.type === 'Available');
};
const waitFor = (name: string, reason: string) =>
  until(async () => (await available(name))?.reason === reason, WAIT);

beforeAll(async () => {
  const ca = await makeCa('front-proxy-ca');
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  const cert = await issueCertificate(
    { subject: { CN: 'front-proxy-client' }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) },
    ca,
  );
  stub = await startAggregatedServer({ service: { name: 'api', namespace: 'wardle' }, clientCA: certificatePem(ca.cert) });
  srv = await startMemoryApiServer({
    authentication: {
      authenticator: { name: 'test', authenticate: (req) => (req.headers.authorization === 'Bearer alice' ? { user: { username: 'alice', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a b'] } } } : undefined) },
      trusted: (raw) => raw.headers.authorization === undefined,
    },
    aggregator: { proxyClient: { cert: certificatePem(cert), key: key.export({ type: 'pkcs8', format: 'pem' }).toString() }, resyncMs: 300, tickMs: 100, openapiRefreshMs: 300 },
  });
  srv.startAggregator();
}, 60_000);
afterAll(async () => {
  await srv?.close();
  await stub?.close();
});

describe('local APIServices', () => {
  it('are registered for the built-in groups with Kubernetes priorities, Available True Local, printed as kubectl shows them', async () => {
    await waitFor('v1.apps', 'Local');
    const apps = await call('GET', `${APISERVICES}/v1.apps`);
    expect(apps.body.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(apps.body.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(await available('v1.apps')).toMatchObject({ status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
    expect((await call('GET', `${APISERVICES}/v1.`)).body.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    await waitFor('v1.', 'Local');
    const table = await call('GET', APISERVICES, undefined, 'application/json', TABLE);
    expect(table.body.columnDefinitions.map((c: Body) => c.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
    const row = table.body.rows.find((r: Body) => r.cells[0] === 'v1.apps');
    expect(row.cells.slice(1, 3)).toEqual(['Local', 'True']);
  });

  it('make /readyz list the aggregator checks as Kubernetes does; autoregister-completion fails while a built-in one is not Available', async () => {
    const readyz = async () => srv.app.inject({ method: 'GET', url: '/readyz?verbose' });
    await until(async () => (await readyz()).statusCode === 200, WAIT);
    const lines = (await readyz()).body.split('\n');
    const from = lines.indexOf('[+]poststarthook/aggregator-reload-proxy-client-cert ok');
    expect(lines.slice(from, from + 11)).toEqual([
      '[+]poststarthook/aggregator-reload-proxy-client-cert ok',
      '[+]poststarthook/start-kube-aggregator-informers ok',
      '[+]poststarthook/apiservice-status-local-available-controller ok',
      '[+]poststarthook/apiservice-status-remote-available-controller ok',
      '[+]poststarthook/apiservice-registration-controller ok',
      '[+]poststarthook/apiservice-discovery-controller ok',
      '[+]poststarthook/kube-apiserver-autoregistration ok',
      '[+]autoregister-completion ok',
      '[+]poststarthook/apiservice-openapi-controller ok',
      '[+]poststarthook/apiservice-openapiv3-controller ok',
      'readyz check passed',
    ]);
    const apps = (await call('GET', `${APISERVICES}/v1.apps`)).body;
    const local = structuredClone(apps.spec);
    apps.spec.service = { namespace: 'nowhere', name: 'apps' };
    expect((await call('PUT', `${APISERVICES}/v1.apps`, apps)).status).toBe(200);
    await waitFor('v1.apps', 'ServiceNotFound');
    await until(async () => (await readyz()).statusCode === 500, WAIT);
    expect((await readyz()).body).toContain('[-]autoregister-completion failed: reason withheld\n');
    expect((await srv.app.inject({ method: 'GET', url: '/healthz/autoregister-completion' })).body).toBe('internal server error: autoregister-completion check failed\n');
    const back = (await call('GET', `${APISERVICES}/v1.apps`)).body;
    back.spec = local;
    expect((await call('PUT', `${APISERVICES}/v1.apps`, back)).status).toBe(200);
    await waitFor('v1.apps', 'Local');
    await until(async () => (await readyz()).statusCode === 200, WAIT);
  });

  it('follow CustomResourceDefinition groups (automanaged=true), created and deleted with the CRD', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.toys.example.com' },
      spec: { group: 'toys.example.com', scope: 'Namespaced', names: { plural: 'gizmos', kind: 'Gizmo' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await waitFor('v1.toys.example.com', 'Local');
    const svc = await call('GET', `${APISERVICES}/v1.toys.example.com`);
    expect(svc.body.spec).toEqual({ group: 'toys.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(svc.body.metadata.labels['kube-aggregator.kubernetes.io/automanaged']).toBe('true');
    await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.toys.example.com');
    await until(async () => (await call('GET', `${APISERVICES}/v1.toys.example.com`)).status === 404, WAIT);
  });
});

describe('APIService validation', () => {
  it('refuses a name other than <version>.<group>, priorities out of range and TLS settings on a local APIService', async () => {
    const r = await call('POST', APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.wrong.example.com' },
      spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 0, versionPriority: 1001, caBundle: Buffer.from('abc').toString('base64') },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes.map((c: Body) => `${c.field}: ${c.message}`)).toEqual([
      'metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1alpha1.wardle.example.com"',
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000',
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
    ]);
    const both = await call('POST', APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.x.example.com' },
      spec: { group: 'x.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10, insecureSkipTLSVerify: true, caBundle: 'YWJj', service: { namespace: 'x' } },
    });
    expect(both.body.details.causes.map((c: Body) => `${c.field}: ${c.message}`)).toEqual([
      'spec.service.name: Required value',
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
  });
});

describe('an aggregated API server', () => {
  const NAME = `v1alpha1.${WARDLE_GROUP}`;

  it('is Available only once its Service has endpoints and it answers discovery', async () => {
    const apiService = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: NAME },
      spec: { group: WARDLE_GROUP, version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, caBundle: stub.caBundle, service: { namespace: 'wardle', name: 'api' } },
    };
    const created = await call('POST', APISERVICES, apiService);
    expect(created.status).toBe(201);
    expect(created.body.spec.service.port).toBe(443);
    await waitFor(NAME, 'ServiceNotFound');
    expect((await available(NAME))?.message).toBe('service/api in "wardle" is not present');
    expect((await asAlice('GET', FLUNDERS)).statusCode).toBe(503);

    await call('POST', '/api/v1/namespaces', { metadata: { name: 'wardle' } });
    await call('POST', '/api/v1/namespaces/wardle/services', { metadata: { name: 'api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: stub.port }] } });
    await call('POST', '/api/v1/namespaces/wardle/endpoints', { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'other', port: stub.port }] }] });
    await waitFor(NAME, 'MissingEndpoints');
    expect((await available(NAME))?.message).toBe('endpoints for service/api in "wardle" have no addresses with port name "https"');

    const ep = (await call('GET', '/api/v1/namespaces/wardle/endpoints/api')).body;
    ep.subsets[0].ports[0].name = 'https';
    expect((await call('PUT', '/api/v1/namespaces/wardle/endpoints/api', ep)).status).toBe(200);
    await waitFor(NAME, 'Passed');
    expect(await available(NAME)).toMatchObject({ status: 'True', message: 'all checks passed' });
    const check = stub.requests.find((r) => r.url === `/apis/${WARDLE_GROUP}/v1alpha1`);
    expect(check?.headers['x-remote-user']).toBe('system:kube-aggregator');
    const row = (await call('GET', APISERVICES, undefined, 'application/json', TABLE)).body.rows.find((r: Body) => r.cells[0] === NAME);
    expect(row.cells.slice(1, 3)).toEqual(['wardle/api', 'True']);
  });

  it('gets requests with the caller in X-Remote-* headers, the front-proxy certificate and no credentials', async () => {
    const created = await asAlice('POST', FLUNDERS, { apiVersion: `${WARDLE_GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name: 'one' } });
    expect(created.statusCode).toBe(201);
    const list = await asAlice('GET', `${FLUNDERS}?limit=500`);
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((f: Body) => f.metadata.name)).toEqual(['one']);
    const seen = stub.requests.filter((r) => r.url.startsWith('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders')).at(-1);
    expect(seen?.url).toBe('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?limit=500');
    expect(seen?.headers['x-remote-user']).toBe('alice');
    expect(seen?.headers['x-remote-group']).toBe('devs, system:authenticated');
    expect(seen?.headers['x-remote-extra-scopes']).toBe('a b');
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.clientCN).toBe('front-proxy-client');
  });

  it('streams a watch through', async () => {
    const port = await listening();
    const first = await new Promise<string>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: `${FLUNDERS}?watch=true` }, (res) => {
        res.once('data', (c: Buffer) => {
          resolve(c.toString('utf8'));
          req.destroy();
        });
      });
      req.on('error', reject);
    });
    expect(JSON.parse(first.split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
  });

  it('gets WebSocket upgrades with the caller in X-Remote-* headers: a watch, an exec-like subresource joined both ways, a refusal relayed', async () => {
    const watch = await wsAsAlice(`${FLUNDERS}?watch=true`);
    const event = await nextMessage(watch);
    watch.close();
    expect(JSON.parse(event.data.toString('utf8'))).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
    const seen = stub.requests.filter((r) => r.url === `${FLUNDERS}?watch=true`).at(-1);
    expect(seen?.headers.upgrade).toBe('websocket');
    expect([seen?.headers['x-remote-user'], seen?.headers['x-remote-group'], seen?.headers.authorization, seen?.clientCN]).toEqual(['alice', 'devs, system:authenticated', undefined, 'front-proxy-client']);

    const echo = await wsAsAlice(`${FLUNDERS}/one/echo`, ['v5.channel.k8s.io']);
    await new Promise((resolve, reject) => echo.once('open', resolve).once('error', reject));
    expect(echo.protocol).toBe('v5.channel.k8s.io');
    echo.send(Buffer.from([1, 0, 255]));
    expect(await nextMessage(echo)).toEqual({ data: Buffer.from([1, 0, 255]), binary: true });
    echo.send('hello');
    const text = await nextMessage(echo);
    expect([text.data.toString('utf8'), text.binary]).toEqual(['hello', false]);
    echo.close();

    const refused = await refusedUpgrade(await wsAsAlice(`${FLUNDERS}/one/log`));
    expect([refused.code, refused.type, JSON.parse(refused.body).message]).toEqual([400, 'application/json', 'only watches can be upgraded']);
  });

  it('is in discovery, legacy and aggregated', async () => {
    await until(async () => (await call('GET', '/apis')).body.groups.some((g: Body) => g.name === WARDLE_GROUP), WAIT);
    expect((await call('GET', `/apis/${WARDLE_GROUP}`)).body).toMatchObject({ kind: 'APIGroup', name: WARDLE_GROUP, preferredVersion: { groupVersion: `${WARDLE_GROUP}/v1alpha1` } });
    const agg = await call('GET', '/apis', undefined, 'application/json', AGGREGATED);
    const group = agg.body.items.find((g: Body) => g.metadata.name === WARDLE_GROUP);
    expect(group.versions[0].resources[0]).toMatchObject({ resource: 'flunders', scope: 'Namespaced', shortNames: ['fl'], responseKind: { kind: 'Flunder' } });
    // Ordered by the APIServices' priorities: Kubernetes' table for the built-in groups, the user's for theirs.
    const names = (await call('GET', '/apis')).body.groups.map((g: Body) => g.name);
    expect(names.slice(0, 4)).toEqual(['apiregistration.k8s.io', 'apps', 'events.k8s.io', 'authentication.k8s.io']);
    expect(names.indexOf('admissionregistration.k8s.io')).toBe(names.indexOf('apiextensions.k8s.io') - 1);
    expect(names.indexOf(WARDLE_GROUP)).toBeGreaterThan(names.indexOf('discovery.k8s.io'));
    // Its priority (1000) is below every built-in group's: last.
    expect(names.at(-1)).toBe(WARDLE_GROUP);
    expect((await call('GET', '/apis/autoscaling')).body.versions.map((v: Body) => v.version)).toEqual(['v2', 'v1']);
    const svc = (await call('GET', `${APISERVICES}/${NAME}`)).body;
    svc.spec.groupPriorityMinimum = 19000;
    expect((await call('PUT', `${APISERVICES}/${NAME}`, svc)).status).toBe(200);
    await until(async () => (await call('GET', '/apis')).body.groups[0].name === WARDLE_GROUP, WAIT);
    expect((await call('GET', '/apis', undefined, 'application/json', AGGREGATED)).body.items[0].metadata.name).toBe(WARDLE_GROUP);
    // The group/version document itself comes from the aggregated server.
    expect((await asAlice('GET', `/apis/${WARDLE_GROUP}/v1alpha1`)).json()).toMatchObject({ kind: 'APIResourceList', groupVersion: `${WARDLE_GROUP}/v1alpha1` });
  });

  it('has its OpenAPI merged: its group-version in /openapi/v3 (proxied), its definitions in /openapi/v2, downloaded again', async () => {
    const GV = `apis/${WARDLE_GROUP}/v1alpha1`;
    const FLUNDER = 'com.example.wardle.v1alpha1.Flunder';
    await until(async () => GV in (await call('GET', '/openapi/v3')).body.paths, WAIT);
    const index = (await call('GET', '/openapi/v3')).body.paths;
    expect(index['apis/apps/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    expect(index[GV].serverRelativeURL).toBe(`/openapi/v3/${GV}?hash=${stub.flunderDescription.length}`);
    const v3 = await asAlice('GET', index[GV].serverRelativeURL);
    expect(v3.statusCode).toBe(200);
    expect(v3.json().components.schemas[FLUNDER]['x-kubernetes-group-version-kind']).toEqual([{ group: WARDLE_GROUP, version: 'v1alpha1', kind: 'Flunder' }]);
    expect(stub.requests.filter((r) => r.url.startsWith(`/openapi/v3/${GV}`)).at(-1)?.headers['x-remote-user']).toBe('alice');

    const v2 = (await call('GET', '/openapi/v2')).body;
    expect(v2.definitions[FLUNDER]).toMatchObject({ description: stub.flunderDescription, properties: { spec: { $ref: `#/definitions/${FLUNDER}Spec` } } });
    expect(v2.definitions[`${FLUNDER}Spec`]).toBeDefined();
    // Only what its group-version's paths reference; a name the apiserver defines keeps the apiserver's definition.
    expect(v2.definitions['com.example.wardle.v1alpha1.Unreferenced']).toBeUndefined();
    expect(v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].description).not.toBe("the stub server's ObjectMeta");
    expect(Object.keys(v2.paths)).toEqual([`/${GV}/namespaces/{namespace}/flunders/{name}`]);
    expect(v2.definitions['io.k8s.api.apps.v1.Deployment']).toBeDefined();
    const download = stub.requests.find((r) => r.url === '/openapi/v2');
    expect([download?.headers['x-remote-user'], download?.headers['x-remote-group'], download?.clientCN]).toEqual(['system:aggregator', undefined, 'front-proxy-client']);

    stub.flunderDescription = 'Flunder, described again.';
    await until(async () => (await call('GET', '/openapi/v2')).body.definitions[FLUNDER].description === 'Flunder, described again.', WAIT);
    await until(async () => (await call('GET', '/openapi/v3')).body.paths[GV].serverRelativeURL.endsWith(`hash=${stub.flunderDescription.length}`), WAIT);

    // A server without /openapi/v3: its /openapi/v2, converted, is served from the apiserver.
    stub.openapiV3 = false;
    await until(async () => /hash=[0-9A-F]{128}$/.test((await call('GET', '/openapi/v3')).body.paths[GV].serverRelativeURL), WAIT);
    const proxied = stub.requests.length;
    const legacy = await call('GET', `/openapi/v3/${GV}`);
    expect(legacy.body.components.schemas[FLUNDER].properties.spec.$ref).toBe(`#/components/schemas/${FLUNDER}Spec`);
    expect(legacy.body.paths[`/${GV}/namespaces/{namespace}/flunders/{name}`].get).toMatchObject({
      'x-kubernetes-group-version-kind': { kind: 'Flunder' },
      responses: { '200': { content: { 'application/json': { schema: { $ref: `#/components/schemas/${FLUNDER}` } } } } },
    });
    expect(stub.requests.slice(proxied).some((r) => r.url.startsWith('/openapi/v3/'))).toBe(false);
    stub.openapiV3 = true;
  });

  it('down: requests get 503 and the APIService turns False with FailedDiscoveryCheck', async () => {
    await stub.close();
    const r = await asAlice('GET', FLUNDERS);
    expect(r.statusCode).toBe(503);
    await waitFor(NAME, 'FailedDiscoveryCheck');
    // Without --enable-aggregator-routing Kubernetes dials the cluster IP (kemu goes on to the endpoint, as kube-proxy).
    const clusterIP = (await call('GET', '/api/v1/namespaces/wardle/services/api')).body.spec.clusterIP;
    expect(clusterIP).toMatch(/^10\./);
    const url = `https://${clusterIP}:443/apis/${WARDLE_GROUP}/v1alpha1`;
    // A kept-alive connection the server closed may first read as EOF, as in Go; the next check dials.
    const refused = `failing or missing response from ${url}: Get "${url}": dial tcp ${clusterIP}:443: connect: connection refused`;
    await until(async () => (await available(NAME))?.message === refused, WAIT);
    const after = await asAlice('GET', FLUNDERS);
    expect(after.statusCode).toBe(503);
    expect(after.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(after.body).toBe('service unavailable\n');
    expect(await refusedUpgrade(await wsAsAlice(`${FLUNDERS}?watch=true`))).toEqual({ code: 503, body: 'service unavailable\n', type: 'text/plain; charset=utf-8' });
  });

  it('deleted: its group-version leaves /openapi/v3 and its definitions /openapi/v2', async () => {
    expect((await call('DELETE', `${APISERVICES}/${NAME}`)).status).toBe(200);
    await until(async () => !(`apis/${WARDLE_GROUP}/v1alpha1` in (await call('GET', '/openapi/v3')).body.paths), WAIT);
    expect((await call('GET', '/openapi/v2')).body.definitions['com.example.wardle.v1alpha1.Flunder']).toBeUndefined();
    expect((await call('GET', `/openapi/v3/apis/${WARDLE_GROUP}/v1alpha1`)).status).toBe(404);
  });

  it('behind a headless Service cannot be routed to without --enable-aggregator-routing (FailedDiscoveryCheck)', async () => {
    await call('POST', '/api/v1/namespaces/wardle/services', { metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ name: 'https', port: 443 }] } });
    await call('POST', '/api/v1/namespaces/wardle/endpoints', { metadata: { name: 'headless' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 1 }] }] });
    const spec = { group: WARDLE_GROUP, version: 'v1beta1', groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: 'wardle', name: 'headless' } };
    expect((await call('POST', APISERVICES, { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `v1beta1.${WARDLE_GROUP}` }, spec })).status).toBe(201);
    await waitFor(`v1beta1.${WARDLE_GROUP}`, 'FailedDiscoveryCheck');
    expect((await available(`v1beta1.${WARDLE_GROUP}`))?.message).toBe('cannot route to service with ClusterIP "None"');
  });
});

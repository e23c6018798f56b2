// pods/proxy, services/proxy and nodes/proxy against a stand-in kubelet (HTTPS, client certificate required)
// that echoes what it is asked: the path each proxy reaches on the kubelet, and Kubernetes' error statuses.
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { certificatePem } from '@kemu/pki';
import { freePort } from '@kemu/base/testing/ports';
import { makeCa } from '../authn/testing/certs.ts';
import { clientPair, servingPair } from '../kubelet-client/testing/fake-kubelet.ts';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { parseProxyPath, splitSchemeNamePort } from './proxy.ts';

let srv: ApiServer;
let kubelet: https.Server;
let base = '';

async function call(method: string, url: string, payload?: unknown, contentType = 'application/json') {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': contentType }, ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }) });
  return { status: r.statusCode, text: r.body, headers: r.headers, json: () => JSON.parse(r.body) as { message?: string; reason?: string; code?: number } };
}

async function create(path: string, body: unknown): Promise<void> {
  const r = await call('POST', path, body);
  expect(r.status, r.text).toBe(201);
}

async function status(path: string, body: unknown): Promise<void> {
  const r = await call('PATCH', `${path}/status`, body, 'application/merge-patch+json');
  expect(r.status, r.text).toBe(200);
}

beforeAll(async () => {
  const ca = await makeCa('kubernetes');
  const serving = await servingPair(ca, ['127.0.0.1']);
  kubelet = https.createServer({ ...serving, ca: certificatePem(ca.cert), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    if (!(req.socket as TLSSocket).authorized) return void res.writeHead(401).end('Unauthorized');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if ((req.url ?? '').startsWith('/kemu/proxy/default/web/81/')) {
        return void res.writeHead(502, { 'x-kemu-proxy-error': 'dial', 'content-type': 'text/plain' }).end('dial tcp 10.244.1.5:81: connect: connection refused');
      }
      if ((req.url ?? '').startsWith('/kemu/proxy/default/web/80/page')) {
        return void res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*', 'x-seen-uri': String(req.headers['x-forwarded-uri']) }).end('<a href="/docs/">d</a> <a href="http://10.244.1.5:80/abs">a</a> <a href="rel">r</a>');
      }
      if ((req.url ?? '').startsWith('/kemu/proxy/default/web/80/moved')) return void res.writeHead(302, { location: 'http://10.244.1.5:80/new/' }).end();
      res.writeHead(200, { 'content-type': 'text/plain', 'x-seen-auth': String(req.headers.authorization ?? '') });
      res.end(`${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`);
    });
  });
  // Upgrades: /ws is a WebSocket that greets and echoes, port 81 is refused, anything else answers 200 without upgrading.
  const wss = new WebSocketServer({ noServer: true });
  kubelet.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = req.url ?? '';
    if (path.startsWith('/kemu/proxy/default/web/80/ws')) {
      return wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(`hello ${path} ${String(req.headers['x-forwarded-for'])} ${String(req.headers.authorization)}`);
        ws.on('message', (d: Buffer) => ws.send(`echo ${d.toString()}`));
      });
    }
    if (path.startsWith('/kemu/proxy/default/web/81/')) return void socket.end('HTTP/1.1 502 Bad Gateway\r\nx-kemu-proxy-error: dial\r\ncontent-length: 51\r\n\r\ndial tcp 10.244.1.5:81: connect: connection refused');
    if (path.startsWith('/kemu/proxy/default/web/80/forbidden')) return void socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n4\r\nnope\r\n0\r\n\r\n');
    // As the kubelet's /kemu/proxy: the connection stays joined to the pod's server, which answers anything after.
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n\r\nhi');
    socket.on('data', () => socket.write('HTTP/1.1 404 Not Found\r\ncontent-type: text/html\r\ncontent-length: 3\r\n\r\npod'));
  });
  await new Promise<void>((r) => kubelet.listen(0, '127.0.0.1', r));
  const port = (kubelet.address() as AddressInfo).port;
  const client = await clientPair(ca, 'kube-apiserver', ['Kubernetes']);
  srv = await startMemoryApiServer({ kubelet: { cert: Buffer.from(client.cert), key: Buffer.from(client.key), preferredAddressTypes: ['InternalIP'], defaultPort: 10250, dialTimeoutMs: 2000 } });
  await srv.app.listen({ host: '127.0.0.1', port: 0 });
  base = `127.0.0.1:${(srv.app.server.address() as AddressInfo).port}`;
  await create('/api/v1/nodes', { metadata: { name: 'n1' } });
  await status('/api/v1/nodes/n1', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } });
  await create('/api/v1/nodes', { metadata: { name: 'down' } });
  await status('/api/v1/nodes/down', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: await freePort() } } } });
  await create('/api/v1/namespaces/default/pods', { metadata: { name: 'web', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] } });
  await status('/api/v1/namespaces/default/pods/web', { status: { podIP: '10.244.1.5' } });
  await create('/api/v1/namespaces/default/pods', { metadata: { name: 'noip' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
  await create('/api/v1/namespaces/default/services', { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 8080, targetPort: 80 }] } });
  await create('/api/v1/namespaces/default/endpoints', { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.244.1.5', targetRef: { kind: 'Pod', name: 'web', namespace: 'default' } }], ports: [{ name: 'http', port: 80 }] }] });
  await create('/api/v1/namespaces/default/services', { metadata: { name: 'empty' }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
  await create('/api/v1/namespaces/default/endpoints', { metadata: { name: 'empty' } });
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await new Promise<void>((r) => (kubelet ? kubelet.close(() => r()) : r()));
});

describe('proxy paths', () => {
  it('parses pod, service and node proxy paths and [scheme:]name[:port]', () => {
    expect(parseProxyPath('/api/v1/namespaces/ns/services/https:web:8443/proxy/a/b')).toEqual({ resource: 'services', namespace: 'ns', id: 'https:web:8443', rest: '/a/b' });
    expect(parseProxyPath('/api/v1/nodes/n1/proxy')).toEqual({ resource: 'nodes', id: 'n1', rest: undefined });
    expect(parseProxyPath('/api/v1/namespaces/ns/pods/web/log')).toBeUndefined();
    expect(splitSchemeNamePort('https:web:8443')).toEqual({ scheme: 'https', name: 'web', port: '8443' });
    expect(splitSchemeNamePort('ftp:web:1')).toBeUndefined();
  });
});

describe('pods/proxy', () => {
  it('reaches the pod port through its kubelet, with method, query and body, without the caller\'s credentials', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/pods/web:80/proxy/submit?x=1', 'hello', 'text/plain');
    expect(r.status).toBe(200);
    expect(r.text).toBe('POST /kemu/proxy/default/web/80/submit?x=1 hello');
    // No port: the first container port.
    expect((await call('GET', '/api/v1/namespaces/default/pods/web/proxy/')).text).toBe('GET /kemu/proxy/default/web/80/ ');
  });

  it('answers Kubernetes\' errors', async () => {
    const refused = await call('GET', '/api/v1/namespaces/default/pods/web:81/proxy/');
    expect([refused.status, refused.json().reason, refused.json().message]).toEqual([503, 'ServiceUnavailable', 'error trying to reach service: dial tcp 10.244.1.5:81: connect: connection refused']);
    const missing = await call('GET', '/api/v1/namespaces/default/pods/nope/proxy/');
    expect([missing.status, missing.json().message]).toEqual([404, 'pods "nope" not found']);
    const noip = await call('GET', '/api/v1/namespaces/default/pods/noip/proxy/');
    expect([noip.status, noip.json().message]).toEqual([400, 'address not allowed']);
    const redirect = await call('GET', '/api/v1/namespaces/default/pods/web/proxy');
    expect([redirect.status, redirect.headers.location]).toEqual([301, '/api/v1/namespaces/default/pods/web/proxy/']);
  });
});

describe('links in proxied answers', () => {
  it('puts an HTML page\'s same-host links and a redirect\'s Location under the proxy prefix, and drops CORS headers', async () => {
    const pod = await call('GET', '/api/v1/namespaces/default/pods/web/proxy/page');
    expect(pod.text).toBe('<a href="/api/v1/namespaces/default/pods/web/proxy/docs/">d</a> <a href="/api/v1/namespaces/default/pods/web/proxy/abs">a</a> <a href="rel">r</a>');
    expect(pod.headers['content-length']).toBe(String(Buffer.byteLength(pod.text)));
    expect(pod.headers['access-control-allow-origin']).toBeUndefined();
    expect(pod.headers['x-seen-uri']).toBe('/api/v1/namespaces/default/pods/web/proxy/page');
    const svc = await call('GET', '/api/v1/namespaces/default/services/web:http/proxy/page');
    expect(svc.text).toContain('href="/api/v1/namespaces/default/services/web:http/proxy/docs/"');
    const moved = await call('GET', '/api/v1/namespaces/default/services/web:http/proxy/moved');
    expect([moved.status, moved.headers.location]).toEqual([302, '/api/v1/namespaces/default/services/web:http/proxy/new/']);
  });
});

/** A WebSocket through the apiserver: its messages, or the HTTP answer that refused it. */
function openSocket(path: string): Promise<{ ws: WebSocket; messages: string[] } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${base}${path}`, { headers: { authorization: 'Bearer secret' } });
    const messages: string[] = [];
    ws.on('message', (d: Buffer) => messages.push(d.toString()));
    ws.on('open', () => resolve({ ws, messages }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', reject);
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe('WebSocket upgrades through the proxies', () => {
  it('joins a WebSocket to the pod\'s server through pods/proxy and services/proxy, without the caller\'s credentials', async () => {
    for (const path of ['/api/v1/namespaces/default/pods/web/proxy/ws?x=1', '/api/v1/namespaces/default/services/web:http/proxy/ws']) {
      const r = await openSocket(path);
      if (!('ws' in r)) throw new Error(`refused: ${r.status} ${r.body}`);
      r.ws.send('ping');
      await until(() => r.messages.length >= 2);
      expect(r.messages).toEqual([`hello /kemu/proxy/default/web/80/ws${path.includes('?') ? '?x=1' : ''} 127.0.0.1 undefined`, 'echo ping']);
      r.ws.close();
    }
  });

  it('answers a backend that does not upgrade, or cannot be dialled, with a 500; passes a backend\'s error on; object errors as Statuses', async () => {
    const plain = await openSocket('/api/v1/namespaces/default/pods/web/proxy/page');
    expect(plain).toEqual({ status: 500, body: expect.stringContaining('"message":"invalid upgrade response: status code 200"') });
    // That connection is not reused: the next request reaches the kubelet, not the pod.
    expect((await call('GET', '/api/v1/nodes/n1/proxy/healthz')).text).toBe('GET /healthz ');
    const refused = await openSocket('/api/v1/namespaces/default/pods/web:81/proxy/');
    expect(refused).toEqual({ status: 500, body: expect.stringContaining('"message":"error dialing backend: dial tcp 10.244.1.5:81: connect: connection refused"') });
    expect((refused as { body: string }).body).not.toContain('reason');
    expect(await openSocket('/api/v1/namespaces/default/pods/web/proxy/forbidden')).toEqual({ status: 403, body: 'nope' });
    const none = await openSocket('/api/v1/namespaces/default/services/empty/proxy/');
    expect(none).toEqual({ status: 503, body: expect.stringContaining('no endpoints available for service \\"empty\\"') });
    expect(await openSocket('/api/v1/namespaces/default/pods/nope/proxy/')).toEqual({ status: 404, body: expect.stringContaining('pods \\"nope\\" not found') });
  });
});

describe('services/proxy', () => {
  it('picks a ready endpoint by port name or number', async () => {
    expect((await call('GET', '/api/v1/namespaces/default/services/web:http/proxy/x')).text).toBe('GET /kemu/proxy/default/web/80/x ');
    expect((await call('GET', '/api/v1/namespaces/default/services/web:8080/proxy/x')).text).toBe('GET /kemu/proxy/default/web/80/x ');
  });

  it('answers 503 with no endpoints, 503 for an unknown port number, 404 for no service', async () => {
    const none = await call('GET', '/api/v1/namespaces/default/services/empty/proxy/');
    expect([none.status, none.json().reason, none.json().message]).toEqual([503, 'ServiceUnavailable', 'no endpoints available for service "empty"']);
    const noPort = await call('GET', '/api/v1/namespaces/default/services/web:9999/proxy/');
    expect([noPort.status, noPort.json().message]).toEqual([503, 'no service port 9999 found for service "web"']);
    // The unnamed port "" does not match the endpoints' "http".
    expect((await call('GET', '/api/v1/namespaces/default/services/web/proxy/')).json().message).toBe('no endpoints available for service "web"');
    expect((await call('GET', '/api/v1/namespaces/default/services/nope/proxy/')).json().message).toBe('services "nope" not found');
  });
});

describe('nodes/proxy', () => {
  it('passes the path to the kubelet API', async () => {
    expect((await call('GET', '/api/v1/nodes/n1/proxy/healthz')).text).toBe('GET /healthz ');
    expect((await call('GET', '/api/v1/nodes/n1/proxy')).text).toBe('GET / ');
  });

  it('answers 503 for a kubelet that cannot be reached, 404 for no node', async () => {
    const down = await call('GET', '/api/v1/nodes/down/proxy/healthz');
    expect([down.status, down.json().reason]).toEqual([503, 'ServiceUnavailable']);
    expect(down.json().message).toMatch(/^error trying to reach service: dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/);
    expect((await call('GET', '/api/v1/nodes/nope/proxy/')).json().message).toBe('nodes "nope" not found');
  });
});

describe('pods/portforward without an upgrade', () => {
  it('is a 400 Upgrade request required', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/pods/web/portforward');
    expect([r.status, r.json().message]).toEqual([400, 'Upgrade request required']);
  });
});

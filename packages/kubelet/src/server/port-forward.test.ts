import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '@kemu/api';
import { realClock, type Logger } from '@kemu/base';
import { SpdySession, type SpdyStream } from '../spdy/session.ts';
import type { LoggedPod } from './container-logs.ts';
import { connectionRefused, servePortForward } from './port-forward.ts';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'u-1' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.3' }] }, status: {} } as Pod;
const worker = { current: pod, lifecycle: { containers: [{ name: 'nginx', state: { kind: 'running' } }] } } as unknown as LoggedPod;
const logger = { info() {}, error() {}, warn() {}, debug() {} } as unknown as Logger;

let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end());
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    servePortForward(req, socket, head, new URL(req.url ?? '/', 'http://x').pathname, { findPod: (ns, n) => (ns === 'default' && n === 'web' ? worker : undefined), clock: realClock, logger }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Upgrades as kubectl's SPDY dialer does; resolves the response (101 with the socket, or an error body). */
function dial(path: string, protocols = ['portforward.k8s.io']): Promise<{ status: number; headers: http.IncomingHttpHeaders; session?: SpdySession; body?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols } });
    req.on('upgrade', (res, socket) => resolve({ status: res.statusCode ?? 0, headers: res.headers, session: new SpdySession(socket, 'client') }));
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function readAll(s: SpdyStream): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    s.on('data', (c: Buffer) => (out += c.toString()));
    s.on('end', () => resolve(out));
  });
}

/** One forwarded connection: kubectl's error stream, then its data stream. */
async function forward(session: SpdySession, remote: number, request: string, requestID: string): Promise<{ error: string; data: string }> {
  const error = session.openStream(new Map([['streamtype', ['error']], ['port', [String(remote)]], ['requestid', [requestID]]]));
  error.end();
  await error.waitReply();
  const data = session.openStream(new Map([['streamtype', ['data']], ['port', [String(remote)]], ['requestid', [requestID]]]));
  await data.waitReply();
  const got = Promise.all([readAll(error), readAll(data)]);
  data.end(request);
  const [e, d] = await got;
  return { error: e, data: d };
}

describe('kubelet /portForward over SPDY/3.1', () => {
  it('upgrades with the negotiated protocol and forwards an HTTP request to nginx', async () => {
    const r = await dial('/portForward/default/web');
    expect(r.status).toBe(101);
    expect(r.headers['x-stream-protocol-version']).toBe('portforward.k8s.io');
    expect(r.headers.upgrade).toBe('SPDY/3.1');
    const got = await forward(r.session!, 80, 'GET / HTTP/1.1\r\nHost: localhost:8080\r\nConnection: close\r\n\r\n', '0');
    expect(got.error).toBe('');
    expect(got.data).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.data).toContain('Server: nginx/1.27.3');
    expect(got.data).toContain('<h1>Welcome to nginx!</h1>');
    // A second connection on the same session.
    const again = await forward(r.session!, 80, 'GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n', '1');
    expect(again.data).toMatch(/^HTTP\/1\.1 404 Not Found/);
    r.session!.close();
  });

  it('a port nothing listens on gets the runtime error text on the error stream', async () => {
    const r = await dial('/portForward/default/web');
    const got = await forward(r.session!, 81, '', '0');
    expect(got.error).toBe(connectionRefused(81, 'u-1'));
    expect(got.error).toMatch(/^error forwarding port 81 to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace "\/var\/run\/netns\/cni-[0-9a-f-]{36}": failed to connect to localhost:81 inside namespace "[0-9a-f]{64}", IPv4: dial tcp4 127.0.0.1:81: connect: connection refused IPv6 dial tcp6 \[::1\]:81: connect: connection refused $/);
    r.session!.close();
  });

  it('answers errors as the kubelet does: unknown pod 404, protocol not offered 403', async () => {
    const missing = await dial('/portForward/default/nope');
    expect([missing.status, missing.body]).toEqual([404, 'pod does not exist']);
    const bad = await dial('/portForward/default/web', ['v9.portforward.k8s.io']);
    expect(bad.status).toBe(403);
    expect(bad.body).toContain('unable to negotiate protocol');
  });

  it('answers PINGs', async () => {
    const r = await dial('/portForward/default/web');
    const echoed = await r.session!.ping(1);
    expect(echoed).toBe(1);
    r.session!.close();
  });
});

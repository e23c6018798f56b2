import http from 'node:http';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Container, Pod } from '@kemu/api';
import { connectPod, type PodServerView } from './pod-servers.ts';
import { versionOf } from './http-pages.ts';

function view(containers: Container[], running = true): PodServerView {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'default' }, spec: { containers }, status: { podIP: '10.244.1.5' } } as Pod;
  return { pod, running: () => running, now: () => Date.parse('2026-12-03T19:30:00Z') };
}

/** An HTTP request over an emulated connection: status, headers, body. */
function get(conn: Duplex, path: string, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ method, path, host: 'localhost', createConnection: () => conn as never }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('emulated servers', () => {
  it('nginx answers its welcome page on 80 with its Server header, 404 elsewhere', async () => {
    const v = view([{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }]);
    const r = await get(connectPod(v, 80) as Duplex, '/');
    expect(r.status).toBe(200);
    expect(r.headers.server).toBe('nginx/1.14.2');
    expect(r.headers['content-type']).toBe('text/html');
    expect(r.headers['content-length']).toBe('615');
    expect(r.body).toContain('<title>Welcome to nginx!</title>');
    const nf = await get(connectPod(v, 80) as Duplex, '/nope');
    expect(nf.status).toBe(404);
    expect(nf.body).toContain('<hr><center>nginx/1.14.2</center>');
  });

  it('nothing listens on a port the image does not serve, nor in a container that is not running', () => {
    expect(connectPod(view([{ name: 'nginx', image: 'nginx' }]), 8080)).toBeUndefined();
    expect(connectPod(view([{ name: 'nginx', image: 'nginx' }], false), 80)).toBeUndefined();
  });

  it('agnhost netexec and serve-hostname answer with the pod name; http-echo with its -text', async () => {
    const agn = 'registry.k8s.io/e2e-test-images/agnhost:2.39';
    expect((await get(connectPod(view([{ name: 'a', image: agn, args: ['netexec', '--http-port=8080'] }]), 8080) as Duplex, '/hostname')).body).toBe('web-1');
    expect((await get(connectPod(view([{ name: 'a', image: agn, args: ['netexec'] }]), 8080) as Duplex, '/')).body).toBe('NOW: 2026-12-03 19:30:00 +0000 UTC');
    expect((await get(connectPod(view([{ name: 'a', image: agn, args: ['serve-hostname'] }]), 9376) as Duplex, '/')).body).toBe('web-1');
    const echo = await get(connectPod(view([{ name: 'e', image: 'hashicorp/http-echo', args: ['-text=hello world', '-listen=:5678'] }]), 5678) as Duplex, '/');
    expect(echo.body).toBe('hello world\n');
    expect(echo.headers['x-app-name']).toBe('http-echo');
  });

  it('httpd says It works!', async () => {
    const r = await get(connectPod(view([{ name: 'h', image: 'httpd:2.4' }]), 80) as Duplex, '/');
    expect(r.body).toBe('<html><body><h1>It works!</h1></body></html>\n');
    expect(r.headers.server).toBe('Apache/2.4.0 (Unix)');
  });

  it('a generic container accepts TCP on its declared ports and echoes', async () => {
    const conn = connectPod(view([{ name: 'r', image: 'redis', ports: [{ containerPort: 6379 }] }]), 6379) as Duplex;
    const got = new Promise<string>((resolve) => {
      let s = '';
      conn.on('data', (c: Buffer) => (s += c.toString()));
      conn.on('end', () => resolve(s));
    });
    conn.end('PING\r\n');
    expect(await got).toBe('PING\r\n');
  });

  it('jmalloc/echo-server echoes the request on $PORT and takes WebSockets: its hostname line, then every message back', async () => {
    const c = { name: 'echo', image: 'jmalloc/echo-server:0.3.7', env: [{ name: 'PORT', value: '9000' }] };
    expect(connectPod(view([c]), 8080)).toBeUndefined();
    const r = await get(connectPod(view([c]), 9000) as Duplex, '/hello?x=1');
    expect(r.headers['content-type']).toBe('text/plain');
    expect(r.body).toBe('Request served by web-1\n\nGET /hello?x=1 HTTP/1.1\n\nHost: localhost:80\nConnection: close\n');
    // nginx has no WebSocket: an Upgrade request gets its page.
    const nginx = connectPod(view([{ name: 'nginx', image: 'nginx' }]), 80) as Duplex;
    const page = await new Promise<number>((resolve, reject) => {
      const req = http.request({ path: '/', headers: { connection: 'Upgrade', upgrade: 'websocket' }, createConnection: () => nginx as never }, (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.end();
    });
    expect(page).toBe(200);
    const ws = new WebSocket('ws://localhost/anything', { createConnection: () => connectPod(view([{ name: 'echo', image: 'jmalloc/echo-server' }]), 8080) as never });
    const messages: { text: string; binary: boolean }[] = [];
    ws.on('message', (d: Buffer, binary: boolean) => messages.push({ text: d.toString(), binary }));
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
    ws.send('hi');
    ws.send(Buffer.from('bin'), { binary: true });
    for (let i = 0; i < 200 && messages.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(messages).toEqual([
      { text: 'Request served by web-1', binary: false },
      { text: 'hi', binary: false },
      { text: 'bin', binary: true },
    ]);
    ws.close();
  });

  it('reads versions from tags', () => {
    expect(versionOf('1.25-alpine', 'x')).toBe('1.25.0');
    expect(versionOf('latest', '1.27.3')).toBe('1.27.3');
  });

  it('hpa-example answers OK! (no newline) once its CPU time has passed at the limit', async () => {
    // 100 ms of CPU per request at a 500m limit: 200 ms; the annotation makes it 10 ms at 1 core.
    const php = { name: 'php-apache', image: 'registry.k8s.io/hpa-example', resources: { limits: { cpu: '500m' } } };
    const t0 = Date.now();
    const r = await get(connectPod(view([php]), 80) as Duplex, '/');
    expect([r.status, r.body, r.headers['x-powered-by']]).toEqual([200, 'OK!', 'PHP/5.6.40']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect((await get(connectPod(view([php]), 80) as Duplex, '/nope')).status).toBe(404);
  });
});

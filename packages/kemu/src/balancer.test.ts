import http from 'node:http';
import https from 'node:https';
import { selfSignedServingCert } from '@kemu/pki';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Balancer } from './balancer.ts';

interface FakeBackend {
  name: string;
  port: number;
  ready: boolean;
  hits: number;
  server: http.Server;
}

async function fakeBackend(name: string): Promise<FakeBackend> {
  const b: FakeBackend = { name, port: 0, ready: true, hits: 0, server: http.createServer() };
  b.server.on('request', (req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(b.ready ? 200 : 500).end(b.ready ? 'ok' : 'not ready');
      return;
    }
    b.hits++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(name);
  });
  await new Promise<void>((r) => b.server.listen(0, '127.0.0.1', () => r()));
  b.port = (b.server.address() as AddressInfo).port;
  return b;
}

function get(port: number, path = '/who'): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let t = '';
        res.on('data', (d: Buffer) => (t += d.toString()));
        res.on('end', () => resolve(t));
      })
      .on('error', reject);
  });
}

/** A POST that a client library would not retry on its own: resolves with the status, rejects with the socket error. */
function post(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/write', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function until(what: string, fn: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('built-in balancer', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  async function setup(n: number) {
    const backends = await Promise.all(Array.from({ length: n }, (_, i) => fakeBackend(`b${i}`)));
    for (const b of backends) cleanup.push(() => new Promise((r) => b.server.close(() => r())));
    const lb = new Balancer({ host: '127.0.0.1', port: 0, backends: backends.map((b) => ({ name: b.name, host: '127.0.0.1', port: b.port })), intervalMs: 100, fall: 2, rise: 1 });
    const port = await lb.listen();
    cleanup.unshift(() => lb.close());
    return { backends, lb, port };
  }

  it('--check-ssl: checks /readyz over TLS (not verified) and passes the TLS traffic through untouched', async () => {
    const pair = await selfSignedServingCert({ host: '127.0.0.1' });
    const server = https.createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => res.writeHead(req.url === '/readyz' ? 200 : 201).end(req.url === '/readyz' ? 'ok' : 'tls'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise((r) => server.close(() => r())));
    const plain = new Balancer({ host: '127.0.0.1', port: 0, backends: [{ name: 'tls', host: '127.0.0.1', port: (server.address() as AddressInfo).port }], intervalMs: 100 });
    const lb = new Balancer({ host: '127.0.0.1', port: 0, backends: [{ name: 'tls', host: '127.0.0.1', port: (server.address() as AddressInfo).port }], intervalMs: 100, checkSsl: true });
    const port = await lb.listen();
    await plain.listen();
    cleanup.unshift(() => lb.close(), () => plain.close());
    await until('the TLS backend up', () => lb.upBackends().includes('tls'));
    // The server's own certificate reaches the client: the balancer only forwards bytes.
    const got = await new Promise<{ status: number; issuer: string }>((resolve, reject) =>
      https.get({ host: '127.0.0.1', port, path: '/x', agent: false, ca: pair.certPem.slice(pair.certPem.indexOf('-----END CERTIFICATE-----') + 26) }, (res) => {
        const issuer = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer.CN);
        res.resume();
        resolve({ status: res.statusCode ?? 0, issuer });
      }).on('error', reject),
    );
    expect(got).toEqual({ status: 201, issuer: expect.stringMatching(/^127\.0\.0\.1-ca@\d+$/) });
    // Without it, a plain-HTTP check of a TLS backend fails: never in rotation.
    await new Promise((r) => setTimeout(r, 300));
    expect(plain.upBackends()).toEqual([]);
  });

  it('spreads connections round-robin over healthy backends', async () => {
    const { port } = await setup(3);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await get(port));
    expect(new Set(seen)).toEqual(new Set(['b0', 'b1', 'b2']));
    expect(seen.filter((s) => s === 'b0')).toHaveLength(2);
  });

  it('takes a backend out after `fall` failed checks and back after `rise` passed ones', async () => {
    const { backends, lb, port } = await setup(3);
    const b1 = backends[1]!;
    b1.ready = false;
    await until('b1 out of rotation', () => !lb.upBackends().includes('b1'));
    const before = b1.hits;
    for (let i = 0; i < 6; i++) expect(await get(port)).not.toBe('b1');
    expect(b1.hits).toBe(before);
    b1.ready = true;
    await until('b1 back in rotation', () => lb.upBackends().includes('b1'));
  });

  it('refuses connections while no backend is up (the port closes), then serves again', async () => {
    const { backends, lb, port } = await setup(2);
    for (const b of backends) b.ready = false;
    await until('every backend out of rotation and the port closed', () => lb.upBackends().length === 0 && !lb.accepting());
    const hits = backends.map((b) => b.hits);
    const errors = await Promise.all([0, 1, 2].map(() => post(port).then(() => 'answered', (e: NodeJS.ErrnoException) => `${e.syscall ?? ''} ${e.code ?? e.message}`)));
    // Refused at connect (nothing sent), not a request taken and dropped ("socket hang up").
    expect(errors).toEqual(['connect ECONNREFUSED', 'connect ECONNREFUSED', 'connect ECONNREFUSED']);
    expect(backends.map((b) => b.hits)).toEqual(hits);
    backends[0]!.ready = true;
    await until('b0 back in rotation and the port open', () => lb.upBackends().includes('b0') && lb.accepting());
    expect(await get(port)).toBe('b0');
    expect(await post(port)).toBe(200);
  });

  it('a backend that refuses a connection leaves the rotation at once; with none left the port closes', async () => {
    const { backends, lb, port } = await setup(2);
    for (const b of backends) {
      await new Promise<void>((r) => b.server.close(() => r()));
      b.server.closeAllConnections();
    }
    // Both still count as up (fall 2): this connect finds both refusing, marks them down and is reset.
    const first = await post(port).then(() => 'answered', (e: NodeJS.ErrnoException) => e.code);
    expect(first).toBe('ECONNRESET');
    expect(lb.upBackends()).toEqual([]);
    await until('the port closed', () => !lb.accepting());
    expect(await post(port).catch((e: NodeJS.ErrnoException) => e.code)).toBe('ECONNREFUSED');
  });

  it('retries a refused connection on the next backend', async () => {
    const { backends, port } = await setup(2);
    // b0 disappears between health checks: connections must still succeed through b1.
    await new Promise<void>((r) => backends[0]!.server.close(() => r()));
    backends[0]!.server.closeAllConnections();
    for (let i = 0; i < 4; i++) expect(await get(port)).toBe('b1');
  });
});

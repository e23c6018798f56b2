// The connection limits on a bare fastify server on a real loopback socket (deadlines need a socket):
// silent connections closed without a reply, stalled bodies and slow handlers answered with a 504 Status.
import Fastify, { type FastifyInstance } from 'fastify';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastifyServerOptions, installConnectionLimits, nodeServerOptions, REQUEST_TIMEOUT_MESSAGE, type ConnectionLimits } from './connection-limits.ts';

const limits: ConnectionLimits = { requestTimeoutMs: 1_500, readHeaderTimeoutMs: 300, readBodyTimeoutMs: 300, idleTimeoutMs: 400 };
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = Fastify({ http: nodeServerOptions(limits), ...fastifyServerOptions(limits), logger: false, forceCloseConnections: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  installConnectionLimits(app, limits);
  app.post('/echo', async (req) => ({ bytes: (req.body as Buffer).length }));
  app.get('/slow', async () => {
    await new Promise((r) => setTimeout(r, 3_000));
    return { late: true };
  });
  app.get('/api/v1/namespaces/default/pods/p/log', async () => {
    await new Promise((r) => setTimeout(r, 2_000));
    return 'long-running: no request timeout';
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});
afterAll(async () => app.close());

/** Opens a connection, sends the given pieces (with pauses), and resolves with what came back and when it closed. */
function exchange(pieces: (string | number)[]): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const t0 = performance.now();
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ answer, ms: performance.now() - t0 }));
    s.on('connect', async () => {
      for (const p of pieces) {
        if (typeof p === 'number') await new Promise((r) => setTimeout(r, p));
        else if (!s.destroyed) s.write(p);
      }
    });
  });
}

function statusOf(answer: string): { code: number; body: { reason?: string; message?: string; code?: number } } {
  const code = Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0);
  return { code, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4) || '{}') as { reason?: string } };
}

describe('connection limits', () => {
  it('closes a connection that never sends a request line, without a reply', async () => {
    const { answer, ms } = await exchange([]);
    expect(answer).toBe('');
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(1_400);
  });

  it('closes a connection whose headers stop halfway, without a reply', async () => {
    const { answer } = await exchange(['POST /echo HTTP/1.1\r\nHost: x\r\n']);
    expect(answer).toBe('');
  });

  it('answers a body that stops arriving with a 504 Status and closes', async () => {
    const { answer, ms } = await exchange(['POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":']);
    const st = statusOf(answer);
    expect(st.code).toBe(504);
    expect(st.body).toMatchObject({ kind: 'Status', reason: 'Timeout', code: 504 });
    expect(ms).toBeLessThan(1_400);
  });

  it('answers a body trickled within the pause limit but past --request-timeout with Kubernetes\' 504', async () => {
    const drip: (string | number)[] = ['POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n'];
    for (let i = 0; i < 20; i++) drip.push(' ', 150);
    const { answer, ms } = await exchange(drip);
    const st = statusOf(answer);
    expect(st.code).toBe(504);
    expect(st.body.message).toBe(REQUEST_TIMEOUT_MESSAGE);
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(2_900);
  });

  it('answers a handler slower than --request-timeout with Kubernetes\' 504 Status', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504, message: REQUEST_TIMEOUT_MESSAGE });
  });

  it('gives long-running requests no request timeout', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/namespaces/default/pods/p/log`);
    expect(res.status).toBe(200);
    await res.text();
  });

  it('serves complete requests and closes the idle keep-alive connection afterwards', async () => {
    const body = '{"a":1}';
    const { answer, ms } = await exchange([`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`]);
    expect(statusOf(answer).code).toBe(200);
    expect(answer).toContain('{"bytes":7}');
    expect(ms).toBeGreaterThanOrEqual(350);
  });
});

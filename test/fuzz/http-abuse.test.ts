// What inject() cannot show, against a real kube-apiserver process: a slow (loris) body, a client gone
// mid-body, a body over 3 MiB (413 Status) and watches dropped at once; the process must stay up and ready.
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import net from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let proc: Proc;
let port: number;
let url: string;

beforeAll(async () => {
  port = await freePort();
  proc = startProcess('apiserver', BIN.apiserver, ['--secure-port=0', '--insecure-port', String(port), '--bind-address', '127.0.0.1', '--datastore-endpoint', 'memory://']);
  url = `http://127.0.0.1:${port}`;
  await waitFor('apiserver ready', async () => {
    if (proc.child.exitCode !== null) throw new Error(proc.output());
    const r = await request(`${url}/readyz`);
    await r.body.text();
    return r.statusCode === 200;
  }, 30_000);
});
afterAll(async () => proc?.kill('SIGKILL'));

async function ready(): Promise<void> {
  expect(proc.child.exitCode).toBeNull();
  const r = await request(`${url}/readyz`);
  expect(await r.body.text()).toBe('ok');
  expect(r.statusCode).toBe(200);
}

/** Sends raw bytes and resolves with whatever the server answered before closing (or '' on reset). */
function raw(chunks: Buffer[], opts: { endAfter?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('error', () => resolve(out));
    s.on('close', () => resolve(out));
    s.on('connect', () => {
      for (const c of chunks) if (!s.destroyed) s.write(c);
      if (opts.endAfter) s.end();
    });
  });
}

describe('HTTP abuse against the real binary', () => {
  it('answers /readyz while a loris trickles a body, and after it gives up', async () => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    s.write('POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    for (let i = 0; i < 5; i++) {
      s.write(' ');
      await ready();
    }
    s.destroy();
    await ready();
  });

  it('survives clients that disconnect mid-body', async () => {
    for (let i = 0; i < 20; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      s.write(`PUT /api/v1/namespaces/default/configmaps/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"metadata":{"name":"x"`);
      s.destroy();
    }
    await ready();
  });

  it('refuses a body over 3 MiB with a 413 Status', async () => {
    const big = Buffer.from(JSON.stringify({ metadata: { name: 'big' }, data: { k: 'x'.repeat(4 << 20) } }));
    const head = Buffer.from(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n`);
    // The declared length alone is refused, before the body is read (writing it all would race a reset).
    const answer = await raw([head, big.subarray(0, 64 * 1024)]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(body).toContain('"kind":"Status"');
    expect(body).toContain('"code":413');
    expect(body).toContain('"reason":"RequestEntityTooLarge"');
    await ready();
  });

  it('survives watches that disconnect immediately or right after the headers', async () => {
    for (let i = 0; i < 30; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      s.write('GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n\r\n');
      if (i % 2 === 1) await new Promise((r) => s.once('data', r));
      s.destroy();
    }
    await ready();
    const c = await request(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'after-abuse' } }) });
    expect(c.statusCode).toBe(201);
    await c.body.text();
  });

  it('answers a path with raw .. segments with a non-5xx', async () => {
    const answer = await raw([Buffer.from('GET /api/v1/namespaces/../pods HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]);
    expect(answer).toMatch(/^HTTP\/1\.1 [234]\d\d /);
    await ready();
  });
});

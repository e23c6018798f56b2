// A huge Authorization header never reaches authentication: node's header limit (16 KiB) answers 431 first,
// so a 1 MiB bearer token is a 4xx, never a 5xx.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';

let srv: ApiServer;
let port: number;
beforeAll(async () => {
  srv = await startMemoryApiServer();
  await srv.app.listen({ port: 0, host: '127.0.0.1' });
  port = (srv.app.server.address() as AddressInfo).port;
});
afterAll(async () => srv?.close());

function statusLine(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    sock.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        resolve(got.slice(0, got.indexOf('\r\n')));
        sock.destroy();
      }
    });
    sock.on('error', (e) => (got.includes('\r\n') ? undefined : reject(e)));
    sock.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
    sock.write(request);
  });
}

describe('oversized credentials', () => {
  it('answers 431 to a 1 MiB Authorization header', async () => {
    const line = await statusLine(`GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(1 << 20)}\r\n\r\n`);
    expect(line).toMatch(/^HTTP\/1\.1 431 /);
  });
});

// The kubelet's --healthz-port as a supervisor or `curl http://127.0.0.1:10248/healthz` sees it: plain HTTP, no
// credentials, "ok"; nothing but /healthz there; Kubernetes' messages for bad flag values; 0 serves nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { healthzFlagError, startKubeletHealthz, type KubeletHealthz } from './healthz.ts';

const started: KubeletHealthz[] = [];
afterAll(async () => {
  await Promise.all(started.map((h) => h.close()));
});

async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

describe('kubelet healthz port', () => {
  it('answers /healthz over plain HTTP without credentials, and nothing else', async () => {
    const port = await freePort();
    const h = startKubeletHealthz({ 'healthz-port': port, 'healthz-bind-address': '127.0.0.1' }, silentLogger());
    started.push(h);
    expect(await h.listening).toBe(port);
    expect(await get(`http://127.0.0.1:${port}/healthz`)).toEqual({ status: 200, body: 'ok' });
    expect(await get(`http://127.0.0.1:${port}/healthz?verbose`)).toEqual({ status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    expect(await get(`http://127.0.0.1:${port}/healthz/ping`)).toEqual({ status: 200, body: 'ok' });
    for (const p of ['/metrics', '/readyz', '/containerLogs/default/p/c']) expect((await get(`http://127.0.0.1:${port}${p}`)).status, p).toBe(404);
  });

  it('--healthz-port=0 serves nothing', async () => {
    const h = startKubeletHealthz({ 'healthz-port': 0, 'healthz-bind-address': '127.0.0.1' }, silentLogger());
    const first = await Promise.race([h.listening, new Promise((r) => setImmediate(() => r('none')))]);
    expect(first).toBe('none');
    await h.close();
  });

  it("refuses bad values with Kubernetes' messages", () => {
    expect(healthzFlagError({ 'healthz-port': 10248, 'healthz-bind-address': '127.0.0.1' })).toBeUndefined();
    expect(healthzFlagError({ 'healthz-port': 65536, 'healthz-bind-address': '127.0.0.1' })).toBe('invalid configuration: healthzPort (--healthz-port) 65536 must be between 1 and 65535, inclusive');
    expect(healthzFlagError({ 'healthz-port': 10248, 'healthz-bind-address': 'localhost' })).toBe('invalid argument "localhost" for "--healthz-bind-address" flag: "localhost" is not a valid IP address');
  });
});

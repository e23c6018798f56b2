// pods/exec and pods/attach through inject() (no kubelet needed for these): the location's errors as
// Kubernetes words them, the refusal of a request that does not upgrade, the kubelet query, and the relay
// that passes the kubelet's WebSocket frames on one per write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../server.ts';
import { startMemoryApiServer } from '../testing/memory-server.ts';
import { FrameRelay, kubeletStreamQuery, streamContainer } from './pod-exec.ts';

let srv: ApiServer;

async function call(method: string, url: string, payload?: unknown) {
  const r = await srv.app.inject({ method: method as 'GET', url, headers: { 'content-type': 'application/json' }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) });
  return { status: r.statusCode, json: () => JSON.parse(r.body) as { message?: string; reason?: string } };
}

beforeAll(async () => {
  srv = await startMemoryApiServer();
  expect((await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'one' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status).toBe(201);
  const two = { metadata: { name: 'two' }, spec: { initContainers: [{ name: 'i', image: 'busybox' }], containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }] } };
  expect((await call('POST', '/api/v1/namespaces/default/pods', two)).status).toBe(201);
});
afterAll(async () => srv?.close());

describe('pods/exec and pods/attach', () => {
  it('refuses an unknown container, an ambiguous one, and a pod on no node with 400', async () => {
    const bad = await call('POST', '/api/v1/namespaces/default/pods/one/exec?container=x&command=ls&stdout=true');
    expect([bad.status, bad.json().message]).toEqual([400, 'container x is not valid for pod one']);
    const two = await call('GET', '/api/v1/namespaces/default/pods/two/attach?stdout=true');
    expect(two.json().message).toBe('a container name must be specified for pod two, choose one of: [a b] or one of the init containers: [i]');
    const unscheduled = await call('GET', '/api/v1/namespaces/default/pods/one/exec?command=ls&stdout=true');
    expect([unscheduled.status, unscheduled.json().message]).toEqual([400, 'pod one does not have a host assigned']);
    expect((await call('GET', '/api/v1/namespaces/default/pods/nope/exec?command=ls')).json().message).toBe('pods "nope" not found');
  });

  it('advertises exec and attach in discovery with create and get', async () => {
    const r = await srv.app.inject({ method: 'GET', url: '/api/v1' });
    const names = (JSON.parse(r.body) as { resources: { name: string; verbs: string[] }[] }).resources.filter((x) => /^pods\/(exec|attach)$/.test(x.name));
    expect(names.map((x) => [x.name, x.verbs])).toEqual([
      ['pods/exec', ['create', 'get']],
      ['pods/attach', ['create', 'get']],
    ]);
  });

  it('sends the kubelet the options as "1" and each command word', () => {
    expect(kubeletStreamQuery('exec', new URLSearchParams('command=sh&command=-c&command=echo hi&stdout=true&stderr=true&tty=false&container=c'))).toBe(
      'command=sh&command=-c&command=echo+hi&stderr=1&stdout=1',
    );
    expect(kubeletStreamQuery('attach', new URLSearchParams('stdin=true&stdout=1&tty=true&command=x'))).toBe('stdin=1&stdout=1&tty=1');
  });

  it('picks the only container when none is named', () => {
    expect(streamContainer({ metadata: { name: 'p' }, spec: { containers: [{ name: 'only' }] } }, '')).toBe('only');
  });

  it('relays the response head, then one WebSocket frame per write', () => {
    const writes: string[] = [];
    const relay = new FrameRelay((b) => writes.push(b.toString('latin1')));
    const head = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n';
    const frame = (payload: string) => Buffer.concat([Buffer.from([0x82, payload.length]), Buffer.from(payload, 'latin1')]);
    const all = Buffer.concat([Buffer.from(head), frame('\x01hi'), frame('\x03{}')]);
    relay.push(all.subarray(0, 10));
    relay.push(all.subarray(10, head.length + 3));
    relay.push(all.subarray(head.length + 3));
    expect(writes).toEqual([head, frame('\x01hi').toString('latin1'), frame('\x03{}').toString('latin1')]);
  });
});

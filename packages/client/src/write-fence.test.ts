// The REST client's side of fencing, against a plain HTTP server and a fence the test drives.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { R } from '@kemu/api';
import { LeaseFence } from './leaderelection/fence.ts';
import { RestClient } from './rest.ts';
import { until } from './testing/lease-contest.ts';
import { FencedWriteError } from './write-fence.ts';

interface Seen {
  method: string;
  url: string;
  lease: string | undefined;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that records every request and answers 200 with a small object, unless `hold` keeps the answer back. */
async function serve(): Promise<{ url: string; seen: Seen[]; hold: { on: boolean } }> {
  const seen: Seen[] = [];
  const hold = { on: false };
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', lease: req.headers['x-kemu-lease'] as string | undefined });
      if (hold.on) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { name: 'x' } }));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  });
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen, hold };
}

function fencedClient(url: string) {
  const clock = { t: 0 };
  const fence = new LeaseFence('kube-system', 'kube-scheduler', 1_000, () => clock.t);
  const client = new RestClient({ server: url, qps: -1 }, { maxRetries: 0 });
  client.fenceWrites(fence);
  cleanups.push(() => client.close());
  return { client, fence, clock };
}

const TOKEN = 'kube-system/kube-scheduler;holder=s-0_1;transitions=2';
const pod = { metadata: { name: 'p' } };

describe('RestClient.fenceWrites', () => {
  it('sends X-Kemu-Lease on every write, never on reads nor on writes to the Lease itself', async () => {
    const s = await serve();
    const { client, fence } = fencedClient(s.url);
    fence.renewed('s-0_1', 2, 0);
    await client.create(R.pods, 'default', pod);
    await client.update(R.pods, 'default', pod, { subresource: 'status' });
    await client.patch(R.pods, 'default', 'p', { metadata: { labels: { a: 'b' } } }, 'merge');
    await client.createSubresource(R.pods, 'default', 'p', 'binding', { target: { name: 'n' } });
    await client.delete(R.pods, 'default', 'p');
    await client.get(R.pods, 'default', 'p');
    await client.update(R.leases, 'kube-system', { metadata: { name: 'kube-scheduler' } });
    await client.update(R.leases, 'kube-system', { metadata: { name: 'other' } });
    expect(s.seen.map((x) => `${x.method} ${x.url.split('?')[0]} ${x.lease ?? '-'}`)).toEqual([
      `POST /api/v1/namespaces/default/pods ${TOKEN}`,
      `PUT /api/v1/namespaces/default/pods/p/status ${TOKEN}`,
      `PATCH /api/v1/namespaces/default/pods/p ${TOKEN}`,
      `POST /api/v1/namespaces/default/pods/p/binding ${TOKEN}`,
      `DELETE /api/v1/namespaces/default/pods/p ${TOKEN}`,
      'GET /api/v1/namespaces/default/pods/p -',
      'PUT /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler -',
      `PUT /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/other ${TOKEN}`,
    ]);
  });

  it('refuses a write locally when the process does not hold the Lease: nothing reaches the server', async () => {
    const s = await serve();
    const { client, fence } = fencedClient(s.url);
    await expect(client.create(R.pods, 'default', pod)).rejects.toThrow(/not the holder of lease kube-system\/kube-scheduler/);
    fence.renewed('s-0_1', 2, 0);
    fence.end('failed to renew');
    await expect(client.create(R.pods, 'default', pod)).rejects.toBeInstanceOf(FencedWriteError);
    await client.get(R.pods, 'default', 'p');
    expect(s.seen.map((x) => x.method)).toEqual(['GET']);
  });

  it('past the renew deadline a write waits: sent after the next renewal, refused if the Lease is lost first', async () => {
    const s = await serve();
    const { client, fence, clock } = fencedClient(s.url);
    fence.renewed('s-0_1', 2, 0);
    clock.t = 1_000;
    const late = client.create(R.pods, 'default', pod);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.seen).toEqual([]);
    fence.renewed('s-0_1', 2, 900);
    await late;
    expect(s.seen.map((x) => x.lease)).toEqual([TOKEN]);

    clock.t = 2_000;
    const lost = client.create(R.pods, 'default', pod);
    await new Promise((r) => setTimeout(r, 50));
    fence.end('failed to renew');
    await expect(lost).rejects.toThrow(/no longer held \(failed to renew\)/);
    expect(s.seen).toHaveLength(1);
  });

  it('aborts the writes in flight when the term ends; reads go on', async () => {
    const s = await serve();
    const { client, fence } = fencedClient(s.url);
    fence.renewed('s-0_1', 2, 0);
    s.hold.on = true;
    const write = client.create(R.pods, 'default', pod);
    const read = client.get(R.pods, 'default', 'p');
    await until('both requests at the server', () => s.seen.length === 2);
    const outcome = write.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    fence.end('stopped leading');
    expect(await outcome).toBeInstanceOf(FencedWriteError);
    let readSettled = false;
    read.then(
      () => (readSettled = true),
      () => (readSettled = true),
    );
    await new Promise((r) => setTimeout(r, 50));
    // The read was not aborted: it still waits for its held answer (it fails when the server closes).
    expect(readSettled).toBe(false);
  });
});

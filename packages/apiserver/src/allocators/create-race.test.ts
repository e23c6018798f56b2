// Two creates of the same Service at once, through the REST surface: whichever one stores the Service
// keeps its ClusterIP and NodePort claimed, and the other one's cleanup never frees them.
import { R } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { MemoryBackend, type KeyValue } from '@kemu/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../bootstrap/system-namespaces.ts';
import { createApiServer, type ApiServer } from '../server.ts';
import { objectKey } from '../storage.ts';
import { NODE_PORT_PREFIX, SERVICE_IP_PREFIX } from './service.ts';

/** Holds the first store create of one key until released, so the other create overtakes it. */
class GatedBackend extends MemoryBackend {
  gateKey = '';
  private gated = false;
  private open: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  release(): void {
    this.open();
  }

  override async create(key: string, value: string): Promise<KeyValue> {
    if (key === this.gateKey && !this.gated) {
      this.gated = true;
      await this.gate;
    }
    return super.create(key, value);
  }
}

let srv: ApiServer;
let backend: GatedBackend;

beforeAll(async () => {
  backend = new GatedBackend();
  srv = await createApiServer({ backend, logger: silentLogger(), serviceClusterIPRange: '10.96.0.0/24', serviceNodePortRange: '30000-30010' });
  await srv.start();
  await ensureSystemNamespaces(srv.ctx.registry);
});
afterAll(async () => srv?.close());

const SVCS = '/api/v1/namespaces/default/services';
const web = (name: string, clusterIP?: string, nodePort?: number) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { type: 'NodePort', ...(clusterIP ? { clusterIP } : {}), ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] },
});

const post = (body: unknown) => srv.app.inject({ method: 'POST', url: SVCS, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('concurrent creates of one Service', () => {
  it('the survivor keeps its requested ClusterIP and NodePort; a third Service cannot get them', async () => {
    backend.gateKey = objectKey(R.services, 'default', 'web');
    const first = post(web('web', '10.96.0.50', 30005));
    // The first create has claimed and is now held at its store write; the second runs to the end.
    await waitUntil(async () => (await backend.get(`${SERVICE_IP_PREFIX}10.96.0.50`)) !== undefined);
    const second = await post(web('web', '10.96.0.50', 30005));
    backend.release();
    const a = await first;
    const results = [a.statusCode, second.statusCode].sort();
    expect(results[0]).toBe(201);
    expect([409, 422]).toContain(results[1]);
    const stored = await srv.app.inject({ method: 'GET', url: `${SVCS}/web` });
    expect(stored.statusCode).toBe(200);
    const svc = JSON.parse(stored.body) as { metadata: { uid: string }; spec: { clusterIP: string; ports: { nodePort: number }[] } };
    expect(svc.spec.clusterIP).toBe('10.96.0.50');
    expect(svc.spec.ports[0]?.nodePort).toBe(30005);
    // Both claims still exist and name the stored Service.
    for (const key of [`${SERVICE_IP_PREFIX}10.96.0.50`, `${NODE_PORT_PREFIX}30005`]) {
      const kv = await backend.get(key);
      expect(JSON.parse(kv?.value ?? '{}')).toMatchObject({ name: 'web', uid: svc.metadata.uid });
    }
    const ipThief = await post(web('thief-ip', '10.96.0.50'));
    expect(ipThief.statusCode).toBe(422);
    expect(JSON.parse(ipThief.body).message).toMatch(/provided IP is already allocated/);
    const portThief = await post(web('thief-port', undefined, 30005));
    expect(portThief.statusCode).toBe(422);
    expect(JSON.parse(portThief.body).message).toMatch(/provided port is already allocated/);
  });
});

async function waitUntil(cond: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// What `kubectl get --raw /api/v1/nodes/<n>/proxy/configz` shows: the KubeletConfiguration under
// "kubeletconfig", with the values the kubelet's flags gave and the kubelet's defaults for the rest.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '@kemu/base';
import { FLAGS } from '../options.ts';
import { configzRoutes } from './configz.ts';

const servers: http.Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function serve(argv: string[]): Promise<string> {
  const { _: _positional, ...flags } = parseFlags(FLAGS, argv);
  const routes = configzRoutes(flags);
  const server = http.createServer((req, res) => {
    void Promise.resolve(routes(req, res, new URL(req.url ?? '/', 'http://x').pathname)).then((done) => done || (res.writeHead(404), res.end()));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('kubelet /configz', () => {
  it('returns the KubeletConfiguration its flags make, as JSON under kubeletconfig', async () => {
    const base = await serve(['--max-pods=20', '--authorization-mode=Webhook', '--node-status-update-frequency=15s', '--secure-port=10260', '--v=2']);
    const r = await fetch(`${base}/configz`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const body = (await r.json()) as { kubeletconfig: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['kubeletconfig']);
    expect(body.kubeletconfig).toMatchObject({
      enableServer: true,
      port: 10260,
      maxPods: 20,
      nodeStatusUpdateFrequency: '15s',
      nodeStatusReportFrequency: '5m0s',
      syncFrequency: '1m0s',
      authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
      authentication: { anonymous: { enabled: true }, webhook: { enabled: false, cacheTTL: '2m0s' } },
      healthzPort: 10248,
      containerLogMaxSize: '10Mi',
      logging: { format: 'text', verbosity: 2 },
    });
    // The struct is set bare, without TypeMeta.
    expect(body.kubeletconfig).not.toHaveProperty('kind');
    expect((await fetch(`${base}/configzz`)).status).toBe(404);
  });
});

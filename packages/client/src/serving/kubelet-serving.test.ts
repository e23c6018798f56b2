// The kubelet's secure port as a client sees it: anonymous and AlwaysAllow by default; with
// --authorization-mode=Webhook a SubjectAccessReview on nodes/<subresource> of the node, refused with the
// kubelet's plain-text lines; --anonymous-auth=false turns a credential-less request away with 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags, silentLogger, startHealthServer, newMetricsRegistry, type HealthServer } from '@kemu/base';
import { freePort } from '@kemu/base/testing/ports';
import { FakeReviewer } from '../testing/fake-reviewer.ts';
import { httpsGet } from '../testing/https-get.ts';
import { RestClient } from '../rest.ts';
import { kubeletServingFlags } from './flags.ts';
import { kubeletSecureServing, kubeletSubresource } from './kubelet-serving.ts';

let reviewer: FakeReviewer;
const servers: HealthServer[] = [];

const FLAGS = {
  'bind-address': { type: 'string', default: '127.0.0.1', usage: '' },
  'secure-port': { type: 'int', default: 1, usage: '' },
  ...kubeletServingFlags(),
} as const;

async function serve(argv: string[]): Promise<number> {
  // --cert-dir="": the self-signed pair stays in memory (the default, /var/lib/kubelet/pki, is the host's).
  const flags = parseFlags(FLAGS, ['--cert-dir=', ...argv]);
  const client = new RestClient({ server: reviewer.url });
  const serving = await kubeletSecureServing(flags, { nodeName: 'worker-0', hostname: 'worker-0', client, logger: silentLogger() });
  const h = await startHealthServer({ bindAddress: '127.0.0.1', port: await freePort(), checks: { syncloop: () => true }, registry: newMetricsRegistry(), ...serving });
  servers.push(h!);
  return h!.port;
}

const get = (port: number, p: string, token?: string) => httpsGet(`https://127.0.0.1:${port}${p}`, token ? { token } : {});

beforeAll(async () => {
  reviewer = await new FakeReviewer().start();
  reviewer.tokens.set('metrics-reader', { username: 'prometheus', groups: ['monitoring'] });
  reviewer.sar = (spec) => ({ allowed: spec.user === 'prometheus' });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await reviewer.stop();
});

describe('kubelet secure port', () => {
  it('maps paths to node subresources as the kubelet does', () => {
    expect(['/metrics', '/metrics/cadvisor', '/stats/summary', '/logs/', '/healthz', '/pods', '/metricsx'].map(kubeletSubresource)).toEqual([
      'metrics',
      'metrics',
      'stats',
      'log',
      'proxy',
      'proxy',
      'proxy',
    ]);
  });

  it('lets anyone in by default (--anonymous-auth=true, --authorization-mode=AlwaysAllow)', async () => {
    const port = await serve([]);
    expect((await get(port, '/healthz')).body).toBe('ok');
    expect((await get(port, '/metrics')).status).toBe(200);
  });

  it('with Webhook authorization asks a SubjectAccessReview about nodes/<subresource> and refuses in plain text', async () => {
    const port = await serve(['--authorization-mode=Webhook', '--authentication-token-webhook']);
    const anon = await get(port, '/metrics');
    expect(anon.status).toBe(403);
    expect(anon.type).toBe('text/plain');
    expect(anon.body).toBe('Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource=metrics)');
    expect(reviewer.accessReviews.at(-1)).toMatchObject({
      user: 'system:anonymous',
      groups: ['system:unauthenticated'],
      resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'metrics', name: 'worker-0' },
    });
    expect((await get(port, '/metrics', 'metrics-reader')).status).toBe(200);
    expect(reviewer.accessReviews.at(-1)).toMatchObject({ user: 'prometheus', groups: ['monitoring', 'system:authenticated'] });
    const bad = await get(port, '/metrics', 'nope');
    expect([bad.status, bad.body]).toEqual([401, 'Unauthorized']);
  });

  it('with --anonymous-auth=false answers 401 to a request without credentials', async () => {
    const port = await serve(['--anonymous-auth=false', '--authentication-token-webhook']);
    expect(await get(port, '/healthz')).toMatchObject({ status: 401, body: 'Unauthorized' });
    expect((await get(port, '/healthz', 'metrics-reader')).status).toBe(200);
  });

  it('refuses bad settings at start-up with Kubernetes\' messages', async () => {
    await expect(serve(['--authorization-mode=RBAC'])).rejects.toThrow('unknown authorization mode RBAC');
    await expect(serve(['--anonymous-auth=false'])).rejects.toThrow('No authentication method configured');
  });
});

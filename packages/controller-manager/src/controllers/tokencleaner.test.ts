import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type Secret } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { TokenCleanerController } from './tokencleaner.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const b64 = (s: string) => Buffer.from(s).toString('base64');
function token(id: string, expiration?: string, namespace = 'kube-system'): Secret {
  const data: Record<string, string> = { 'token-id': b64(id), 'token-secret': b64('0123456789abcdef') };
  if (expiration !== undefined) data.expiration = b64(expiration);
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace }, type: 'bootstrap.kubernetes.io/token', data };
}
const names = (env: FakeEnv, ns = 'kube-system') => env.api.all<Secret>(R.secrets, ns).map((s) => s.metadata.name);

describe('token-cleaner-controller', () => {
  it('deletes expired and unparseable tokens at once, keeps tokens without expiry, and deletes the rest when they expire', async () => {
    const env = fakeContext();
    envs.push(env);
    const now = env.clock.now();
    await env.api.create(R.secrets, 'kube-system', token('expire', formatTime(now - 1000)));
    await env.api.create(R.secrets, 'kube-system', token('garble', 'tomorrow'));
    await env.api.create(R.secrets, 'kube-system', token('foreva'));
    await env.api.create(R.secrets, 'kube-system', token('later1', formatTime(now + 60_000)));
    await env.api.create(R.secrets, 'default', token('elsewh', formatTime(now - 1000), 'default'));
    const c = new TokenCleanerController(env.ctx);
    env.informers.start(env.abort.signal);
    void c.run();
    await settle();
    expect(names(env).sort()).toEqual(['bootstrap-token-foreva', 'bootstrap-token-later1']);
    expect(names(env, 'default')).toEqual(['bootstrap-token-elsewh']);
    const del = env.api.calls.find((x) => x.verb === 'delete' && x.name === 'bootstrap-token-expire');
    expect(del?.body).toMatchObject({ preconditions: { uid: expect.any(String) } });

    await env.clock.advance(59_000);
    await settle();
    expect(names(env)).toContain('bootstrap-token-later1');
    await env.clock.advance(2_000);
    await settle();
    expect(names(env)).toEqual(['bootstrap-token-foreva']);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { compactVerify } from 'jose';
import { R, type ConfigMap, type Secret } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { BootstrapSignerController, computeDetachedSignature } from './bootstrapsigner.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: ""\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

function token(id: string, secret: string, extra: Record<string, string> = { 'usage-bootstrap-signing': 'true' }): Secret {
  const data: Record<string, string> = { 'token-id': b64(id), 'token-secret': b64(secret) };
  for (const [k, v] of Object.entries(extra)) data[k] = b64(v);
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data };
}

async function start(...objs: (Secret | ConfigMap)[]): Promise<FakeEnv> {
  const env = fakeContext();
  envs.push(env);
  for (const o of objs) await env.api.create(o.kind === 'Secret' ? R.secrets : R.configmaps, o.metadata.namespace, o);
  const c = new BootstrapSignerController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

const clusterInfo = (): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: KUBECONFIG } });
const dataOf = async (env: FakeEnv) => (await env.api.get<ConfigMap>(R.configmaps, 'kube-public', 'cluster-info')).data ?? {};

/** What kubeadm join does: re-attach the payload and verify with the (zero-padded) token secret. */
async function verifies(detached: string, content: string, id: string, secret: string): Promise<boolean> {
  const [h, , s] = detached.split('.');
  const key = new Uint8Array(32);
  key.set(new TextEncoder().encode(secret));
  try {
    const { protectedHeader, payload } = await compactVerify(`${h}.${Buffer.from(content).toString('base64url')}.${s}`, key, { algorithms: ['HS256'] });
    return protectedHeader.kid === id && new TextDecoder().decode(payload) === content;
  } catch {
    return false;
  }
}

describe('computeDetachedSignature', () => {
  it("gives cluster-bootstrap's known answers (its jws_test.go vectors), short and empty secrets padded to 32 bytes", async () => {
    const content = 'Hello from the other side. I must have called a thousand times.';
    expect(await computeDetachedSignature(content, 'joshua', 'my voice is my passcode')).toBe(
      'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8',
    );
    expect(await computeDetachedSignature('', 'joshua', 'my voice is my passcode')).toBe('eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
    expect(await computeDetachedSignature(content, 'joshua', '')).toBe('eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8');
  });
});

describe('bootstrap-signer-controller', () => {
  it('signs cluster-info for a signing token, with a detached JWS that verifies, and drops it when the token goes', async () => {
    const env = await start(clusterInfo(), token('abcdef', '0123456789abcdef'));
    // Signing is WebCrypto work off the event loop: wait for the write rather than for a number of ticks.
    const data = await vi.waitFor(async () => {
      const d = await dataOf(env);
      expect(d['jws-kubeconfig-abcdef']).toBeDefined();
      return d;
    });
    const sig = data['jws-kubeconfig-abcdef'] ?? '';
    expect(sig).toMatch(/^[\w-]+\.\.[\w-]+$/);
    expect(JSON.parse(Buffer.from(sig.split('.')[0] ?? '', 'base64url').toString())).toEqual({ alg: 'HS256', kid: 'abcdef' });
    expect(await verifies(sig, KUBECONFIG, 'abcdef', '0123456789abcdef')).toBe(true);
    expect(await verifies(sig, KUBECONFIG, 'abcdef', '0123456789abcdeX')).toBe(false);
    expect(data.kubeconfig).toBe(KUBECONFIG);

    await env.api.delete(R.secrets, 'kube-system', 'bootstrap-token-abcdef');
    await vi.waitFor(async () => expect(Object.keys(await dataOf(env))).toEqual(['kubeconfig']));
  });

  it('re-signs when the kubeconfig changes and signs a token added later', async () => {
    const env = await start(clusterInfo());
    expect(Object.keys(await dataOf(env))).toEqual(['kubeconfig']);
    await env.api.create(R.secrets, 'kube-system', token('qwerty', 'aaaaaaaaaaaaaaaa'));
    await settle();
    const cm = await env.api.get<ConfigMap>(R.configmaps, 'kube-public', 'cluster-info');
    const next = KUBECONFIG.replace('10.0.0.1', '10.0.0.2');
    await env.api.update(R.configmaps, 'kube-public', { ...cm, data: { ...cm.data, kubeconfig: next } });
    const want = await computeDetachedSignature(next, 'qwerty', 'aaaaaaaaaaaaaaaa');
    await vi.waitFor(async () => expect((await dataOf(env))['jws-kubeconfig-qwerty']).toBe(want));
    const sig = (await dataOf(env))['jws-kubeconfig-qwerty'] ?? '';
    expect(await verifies(sig, next, 'qwerty', 'aaaaaaaaaaaaaaaa')).toBe(true);
  });

  it('signs only with valid, unexpired signing tokens in kube-system and never creates cluster-info', async () => {
    const env = await start(
      clusterInfo(),
      token('aaaaaa', '1111111111111111', {}), // not for signing
      token('bbbbbb', '2222222222222222', { 'usage-bootstrap-signing': 'true', expiration: '2000-01-01T00:00:00Z' }),
      token('cccccc', '3333333333333333', { 'usage-bootstrap-signing': 'true', expiration: '2999-01-01T00:00:00Z' }),
      { ...token('dddddd', '4444444444444444'), metadata: { name: 'bootstrap-token-dddddd', namespace: 'default' } },
      { ...token('eeeeee', '5555555555555555'), metadata: { name: 'bootstrap-token-xxxxxx', namespace: 'kube-system' } },
    );
    await vi.waitFor(async () => expect(Object.keys(await dataOf(env)).sort()).toEqual(['jws-kubeconfig-cccccc', 'kubeconfig']));

    const bare = await start(token('abcdef', '0123456789abcdef'));
    expect(bare.api.all(R.configmaps, 'kube-public')).toEqual([]);
  });
});

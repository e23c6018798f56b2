import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { bootstrapTokenAuthenticator } from './bootstrap-token.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
function secret(data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...extra,
  };
}
const GOOD = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
const TOKEN = 'abcdef.0123456789abcdef';
const auth = (s: KubeObject | undefined, now = Date.now()) => bootstrapTokenAuthenticator({ getSecret: (ns, name) => (ns === 'kube-system' && name === s?.metadata.name ? s : undefined) }, () => now);

describe('bootstrap token authenticator', () => {
  it('authenticates system:bootstrap:<id> in system:bootstrappers plus the extra groups (sorted)', async () => {
    const res = await auth(secret({ ...GOOD, 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token,system:bootstrappers:a', expiration: '2999-01-01T00:00:00Z' })).authenticateToken(TOKEN);
    expect(res?.user).toEqual({ username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:kubeadm:default-node-token'] });
  });

  it('answers nothing (not an error) for every mismatch', async () => {
    const s = secret(GOOD);
    expect(await auth(s).authenticateToken('abcdef.0123456789abcdeX')).toBeUndefined(); // not the token form
    expect(await auth(s).authenticateToken('abcdef.0123456789abcdee')).toBeUndefined(); // wrong secret
    expect(await auth(undefined).authenticateToken(TOKEN)).toBeUndefined(); // no Secret
    expect(await auth(secret(GOOD, { type: 'Opaque' })).authenticateToken(TOKEN)).toBeUndefined();
    expect(await auth(secret({ ...GOOD, 'usage-bootstrap-authentication': 'false' })).authenticateToken(TOKEN)).toBeUndefined();
    expect(await auth(secret({ ...GOOD, 'auth-extra-groups': 'my-group' })).authenticateToken(TOKEN)).toBeUndefined();
    expect(await auth(secret(GOOD, { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system', deletionTimestamp: '2020-01-01T00:00:00Z' } })).authenticateToken(TOKEN)).toBeUndefined();
  });

  it('stops at the expiration, and treats an unparseable one as expired', async () => {
    const t = Date.parse('2030-01-01T00:00:00Z');
    const s = secret({ ...GOOD, expiration: '2030-01-01T00:00:00Z' });
    expect(await auth(s, t - 1000).authenticateToken(TOKEN)).toBeDefined();
    expect(await auth(s, t).authenticateToken(TOKEN)).toBeUndefined();
    expect(await auth(secret({ ...GOOD, expiration: 'tomorrow' }), t).authenticateToken(TOKEN)).toBeUndefined();
  });
});

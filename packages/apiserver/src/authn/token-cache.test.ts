import { describe, expect, it } from 'vitest';
import { cachedTokenAuthenticator } from './token-cache.ts';
import { AuthenticationError, type TokenAuthenticator } from './types.ts';

describe('token cache', () => {
  it('believes a good token for ten seconds, and never caches a failure', async () => {
    let valid = true;
    let calls = 0;
    const inner: TokenAuthenticator = {
      name: 'inner',
      authenticateToken: () => {
        calls++;
        if (!valid) throw new AuthenticationError('service account token has been invalidated');
        return { user: { username: 'u', groups: [] } };
      },
    };
    let now = 1_000_000;
    const cached = cachedTokenAuthenticator(inner, 10_000, () => now);
    expect((await cached.authenticateToken('t'))?.user.username).toBe('u');
    valid = false;
    now += 9_999;
    expect((await cached.authenticateToken('t'))?.user.username).toBe('u');
    expect(calls).toBe(1);
    now += 1;
    await expect(async () => cached.authenticateToken('t')).rejects.toThrow('service account token has been invalidated');
    await expect(async () => cached.authenticateToken('t')).rejects.toThrow('service account token has been invalidated');
    expect(calls).toBe(3);
    // Other audiences are another question.
    valid = true;
    await cached.authenticateToken('t', ['a']);
    expect(calls).toBe(4);
  });
});

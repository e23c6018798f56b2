import { describe, expect, it } from 'vitest';
import { base32NoPadding, identityLeaseName } from './identity-lease.ts';

describe('identity Lease name', () => {
  it.each([
    // The three control-plane hosts of the seed walkthrough and the Lease names their kube-apiservers registered.
    ['controller-0', 'apiserver-wlwnjbc6t2b2g566g3usjzlbdm'],
    ['controller-1', 'apiserver-tyzveoctxbnh6lvbkdt2xqncle'],
    ['controller-2', 'apiserver-zjy5m4qienmmbtxvgklj3tgz6i'],
  ])('%s → %s, as kube-apiserver names it', (host, name) => {
    expect(identityLeaseName(host)).toBe(name);
  });

  it('is 26 lower-case base32 characters after "apiserver-", a valid object name', () => {
    expect(identityLeaseName('apiserver-0')).toMatch(/^apiserver-[a-z2-7]{26}$/);
    expect(identityLeaseName('apiserver-0')).not.toBe(identityLeaseName('apiserver-1'));
  });

  it('base32 without padding matches RFC 4648 test vectors', () => {
    const enc = (s: string) => base32NoPadding(Buffer.from(s));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map(enc)).toEqual(['', 'MY', 'MZXQ', 'MZXW6', 'MZXW6YQ', 'MZXW6YTB', 'MZXW6YTBOI']);
  });
});

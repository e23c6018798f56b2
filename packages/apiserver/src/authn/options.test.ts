import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyPem } from '@kemu/pki';
import { AUTHN_FLAGS, buildAuthenticator, validateAuthnFlags, type AuthnFlagValues } from './options.ts';

const dir = mkdtempSync(join(tmpdir(), 'kemu-authn-opts-'));
const defaults = Object.fromEntries(Object.entries(AUTHN_FLAGS).map(([k, v]) => [k, v.default])) as unknown as AuthnFlagValues;
const none = { getServiceAccount: () => undefined, getSecret: () => undefined, getPod: () => undefined, getNode: () => undefined };

describe('authentication options', () => {
  it('defaults as Kubernetes: anonymous on, lookup on, nothing else', async () => {
    expect(defaults['anonymous-auth']).toBe(true);
    expect(defaults['service-account-lookup']).toBe(true);
    const built = buildAuthenticator(defaults, none);
    expect((await built.authenticator.authenticate({ headers: {}, peerCertificates: [] }))?.user.username).toBe('system:anonymous');
    expect(built.tokenIssuer).toBeUndefined();
  });

  it('defaults --api-audiences to the issuers and issues with the first', async () => {
    const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    writeFileSync(join(dir, 'sa.key'), privateKeyPem(key));
    const built = buildAuthenticator(
      { ...defaults, 'service-account-issuer': ['https://a', 'https://b'], 'service-account-key-file': [join(dir, 'sa.key')], 'service-account-signing-key-file': join(dir, 'sa.key') },
      none,
    );
    expect(built.apiAudiences).toEqual(['https://a', 'https://b']);
    expect(built.tokenIssuer?.issuer).toBe('https://a');
    expect(built.tokenIssuer?.signer.alg).toBe('ES256');
  });

  it('throws clear start-up errors for unreadable or malformed files', () => {
    writeFileSync(join(dir, 'bad.csv'), 'a,b\n');
    writeFileSync(join(dir, 'bad.pem'), 'garbage');
    expect(() => buildAuthenticator({ ...defaults, 'token-auth-file': join(dir, 'bad.csv') }, none)).toThrow('must have at least 3 columns');
    expect(() => buildAuthenticator({ ...defaults, 'service-account-key-file': [join(dir, 'bad.pem')] }, none)).toThrow(
      `failed to parse key file "${join(dir, 'bad.pem')}": error reading public key file`,
    );
    expect(() => buildAuthenticator({ ...defaults, 'requestheader-client-ca-file': join(dir, 'nope.pem') }, none)).toThrow('no such file or directory');
  });

  it('validates the issuers and the maximum expiration', () => {
    expect(validateAuthnFlags({ ...defaults, 'service-account-issuer': ['https://a', 'https://a'] })).toEqual(['service-account-issuer "https://a" is already specified']);
    expect(validateAuthnFlags({ ...defaults, 'service-account-signing-key-file': 'sa.key', 'service-account-max-token-expiration': 60_000 })).toEqual([
      'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
    ]);
    expect(validateAuthnFlags(defaults)).toEqual([]);
    expect(validateAuthnFlags(defaults, { requireServiceAccounts: true })).toEqual(['service-account-issuer is a required flag', 'service-account-key-file is a required flag']);
  });

  it('answers TokenReview-style questions without anonymous', async () => {
    writeFileSync(join(dir, 'tokens.csv'), 'tok,jane,1,dev\n');
    const built = buildAuthenticator({ ...defaults, 'token-auth-file': join(dir, 'tokens.csv') }, none);
    expect((await built.tokenAuthenticator.authenticateToken('tok'))?.user.groups).toEqual(['dev', 'system:authenticated']);
    await expect(async () => built.tokenAuthenticator.authenticateToken('nope')).rejects.toThrow('invalid bearer token');
  });
});

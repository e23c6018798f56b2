import { describe, expect, it } from 'vitest';
import type { Signer } from '@kemu/pki';
import { requestHeaderAuthenticator } from './request-header.ts';
import { makeCa, makeClient, presenting } from './testing/certs.ts';

const HEADERS = { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

describe('request-header authenticator', () => {
  let proxyCa: Signer;
  let clientCa: Signer;

  it('takes the user, groups and extra from the headers of a front-proxy certificate, and removes them', async () => {
    proxyCa = await makeCa('front-proxy-ca');
    clientCa = await makeCa('kubernetes');
    const proxy = await makeClient(proxyCa, 'front-proxy-client');
    const req = presenting([proxy], { 'x-remote-user': 'alice', 'x-remote-extra-scopes': 'a', 'x-remote-extra-acme.com%2fproject': 'p1', other: 'kept' });
    req.headersDistinct = { 'x-remote-group': ['g1', 'g2'], 'x-remote-user': ['alice'] };
    req.headers['x-remote-group'] = 'g1, g2';
    const res = await requestHeaderAuthenticator({ roots: [proxyCa.cert], allowedNames: ['front-proxy-client'], ...HEADERS }).authenticate(req);
    expect(res?.user).toEqual({ username: 'alice', groups: ['g1', 'g2'], extra: { scopes: ['a'], 'acme.com/project': ['p1'] } });
    expect(Object.keys(req.headers).sort()).toEqual(['other']);
  });

  it('refuses a proxy whose CN is not allowed', async () => {
    const proxy = await makeClient(proxyCa, 'someone');
    const req = presenting([proxy], { 'x-remote-user': 'alice' });
    await expect(async () => requestHeaderAuthenticator({ roots: [proxyCa.cert], allowedNames: ['front-proxy-client'], ...HEADERS }).authenticate(req)).rejects.toThrow(
      'x509: subject with cn=someone is not in the allowed list',
    );
  });

  it('refuses a certificate of the client CA: only the front-proxy CA may assert headers', async () => {
    const cert = await makeClient(clientCa, 'front-proxy-client');
    const req = presenting([cert], { 'x-remote-user': 'admin' });
    await expect(async () => requestHeaderAuthenticator({ roots: [proxyCa.cert], allowedNames: [], ...HEADERS }).authenticate(req)).rejects.toThrow('x509: certificate signed by unknown authority');
  });

  it('answers nothing without a username header (any allowed CN when the list is empty)', async () => {
    const proxy = await makeClient(proxyCa, 'anything');
    expect(await requestHeaderAuthenticator({ roots: [proxyCa.cert], allowedNames: [], ...HEADERS }).authenticate(presenting([proxy], {}))).toBeUndefined();
  });
});

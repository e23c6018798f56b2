import { describe, expect, it } from 'vitest';
import { bearerTokenAuthenticator, webSocketProtocolAuthenticator } from './bearer-token.ts';
import { tokenFileAuthenticator } from './token-file.ts';
import { AuthenticationError, type Authenticator, type AuthnRequest } from './types.ts';
import { unionAuthenticator } from './union.ts';

const tokens = tokenFileAuthenticator(new Map([['good', { username: 'jane', uid: '1', groups: ['dev'] }], ['master', { username: 'root', groups: ['system:authenticated'] }]]));
const req = (headers: Record<string, string>): AuthnRequest => ({ headers: { ...headers }, peerCertificates: [] });
const failing: Authenticator = {
  name: 'failing',
  authenticate: (r) => {
    if (r.headers['x-cert']) throw new AuthenticationError('x509: certificate signed by unknown authority');
    return undefined;
  },
};
const chain = (anonymous: boolean) => unionAuthenticator([failing, bearerTokenAuthenticator(tokens), webSocketProtocolAuthenticator(tokens)], { anonymous });

describe('union authenticator', () => {
  it('adds system:authenticated once, and removes the Authorization header on success', async () => {
    const r = req({ authorization: 'Bearer good' });
    expect((await chain(true).authenticate(r))?.user).toEqual({ username: 'jane', uid: '1', groups: ['dev', 'system:authenticated'] });
    expect(r.headers.authorization).toBeUndefined();
    expect((await chain(true).authenticate(req({ authorization: 'bEaReR master' })))?.user.groups).toEqual(['system:authenticated']);
  });

  it('makes a request without credentials anonymous when allowed, and nobody otherwise', async () => {
    expect((await chain(true).authenticate(req({})))?.user).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(await chain(false).authenticate(req({}))).toBeUndefined();
    // Not a bearer credential at all: ignored, as Kubernetes does.
    expect((await chain(true).authenticate(req({ authorization: 'Basic Zm9vOmJhcg==' })))?.user.username).toBe('system:anonymous');
    expect((await chain(true).authenticate(req({ authorization: 'Bearer' })))?.user.username).toBe('system:anonymous');
  });

  it('refuses a bad credential even with anonymous on', async () => {
    await expect(async () => chain(true).authenticate(req({ authorization: 'Bearer garbage' }))).rejects.toThrow('invalid bearer token');
    await expect(async () => chain(true).authenticate(req({ 'x-cert': '1' }))).rejects.toThrow('x509: certificate signed by unknown authority');
    await expect(async () => chain(true).authenticate(req({ 'x-cert': '1', authorization: 'Bearer garbage' }))).rejects.toThrow(
      '[x509: certificate signed by unknown authority, invalid bearer token]',
    );
    // One authenticator refusing does not stop another from accepting.
    expect((await chain(true).authenticate(req({ 'x-cert': '1', authorization: 'Bearer good' })))?.user.username).toBe('jane');
  });

  it('reads the WebSocket bearer subprotocol and strips it on success', async () => {
    const proto = `base64url.bearer.authorization.k8s.io.${Buffer.from('good').toString('base64url')}`;
    const ws = { connection: 'Upgrade', upgrade: 'websocket' };
    const r = req({ ...ws, 'sec-websocket-protocol': `${proto}, v4.channel.k8s.io` });
    expect((await chain(false).authenticate(r))?.user.username).toBe('jane');
    expect(r.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io');
    await expect(async () => chain(true).authenticate(req({ ...ws, 'sec-websocket-protocol': proto }))).rejects.toThrow('missing additional subprotocol');
    await expect(async () => chain(true).authenticate(req({ ...ws, 'sec-websocket-protocol': `${proto}, ${proto}, x` }))).rejects.toThrow(
      'multiple base64.bearer.authorization tokens specified',
    );
  });
});

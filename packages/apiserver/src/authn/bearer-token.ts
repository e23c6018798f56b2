// Where bearer tokens come from, as Kubernetes' bearertoken and websocket protocol authenticators: the
// "Authorization: Bearer <token>" header (scheme in any case, the token the first word after it), or, on a
// WebSocket upgrade, the subprotocol "base64url.bearer.authorization.k8s.io.<base64url token>". A token nobody
// accepts is "invalid bearer token"; on success the credential is removed from the request.
import { aggregate } from './aggregate.ts';
import { AuthenticationError, type Authenticator, type AuthnRequest, type AuthnResponse, type TokenAuthenticator } from './types.ts';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';
const PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** Token authenticators tried in order: the first that accepts wins; otherwise their errors, aggregated. */
export function tokenUnion(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    name: 'token-union',
    async authenticateToken(token, audiences): Promise<AuthnResponse | undefined> {
      const errs: unknown[] = [];
      for (const a of authenticators) {
        try {
          const res = await a.authenticateToken(token, audiences);
          if (res) return res;
        } catch (e) {
          errs.push(e);
        }
      }
      const err = aggregate(errs);
      if (err) throw err;
      return undefined;
    },
  };
}

function headerValue(req: AuthnRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function check(auth: TokenAuthenticator, token: string, req: AuthnRequest): Promise<AuthnResponse> {
  const res = await auth.authenticateToken(token, req.audiences);
  if (!res) throw new AuthenticationError(INVALID_BEARER_TOKEN);
  return res;
}

export function bearerTokenAuthenticator(auth: TokenAuthenticator): Authenticator {
  return {
    name: 'bearer-token',
    async authenticate(req) {
      const header = (headerValue(req, 'authorization') ?? '').trim();
      if (header === '') return undefined;
      const parts = header.split(' ');
      if (parts.length < 2 || (parts[0] ?? '').toLowerCase() !== 'bearer') return undefined;
      const token = parts[1] ?? '';
      if (token === '') return undefined;
      const res = await check(auth, token, req);
      delete req.headers.authorization;
      if (req.headersDistinct) delete req.headersDistinct.authorization;
      return res;
    },
  };
}

function isWebSocket(req: AuthnRequest): boolean {
  const connection = (headerValue(req, 'connection') ?? '').toLowerCase().split(',').map((s) => s.trim());
  return connection.includes('upgrade') && (headerValue(req, 'upgrade') ?? '').toLowerCase() === 'websocket';
}

export function webSocketProtocolAuthenticator(auth: TokenAuthenticator): Authenticator {
  return {
    name: 'websocket-protocol',
    async authenticate(req) {
      if (!isWebSocket(req)) return undefined;
      const lines = req.headersDistinct?.['sec-websocket-protocol'] ?? [headerValue(req, 'sec-websocket-protocol') ?? ''];
      let token = '';
      let sawToken = false;
      const others: string[] = [];
      for (const line of lines) {
        for (const raw of line.split(',')) {
          const p = raw.trim();
          if (!p.startsWith(PROTOCOL_PREFIX)) {
            others.push(p);
            continue;
          }
          if (sawToken) throw new AuthenticationError('multiple base64.bearer.authorization tokens specified');
          sawToken = true;
          const enc = p.slice(PROTOCOL_PREFIX.length);
          if (!/^[A-Za-z0-9_-]*$/.test(enc) || enc.length % 4 === 1) throw new AuthenticationError('invalid base64.bearer.authorization token encoding');
          const bytes = Buffer.from(enc, 'base64url');
          const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
          if (Buffer.from(text, 'utf8').compare(bytes) !== 0) throw new AuthenticationError('invalid base64.bearer.authorization token');
          token = text;
        }
      }
      if (token !== '' && others.length === 0) throw new AuthenticationError('missing additional subprotocol');
      if (token === '') return undefined;
      const res = await check(auth, token, req);
      req.headers['sec-websocket-protocol'] = others.join(',');
      if (req.headersDistinct) req.headersDistinct['sec-websocket-protocol'] = [others.join(',')];
      return res;
    },
  };
}

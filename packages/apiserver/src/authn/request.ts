// The AuthnRequest of an incoming HTTP(S) request: its headers and, on TLS, the client certificate as presented.
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthnRequest } from './types.ts';

type TlsPart = Pick<AuthnRequest, 'tls' | 'peerCertificates'>;

// A connection's client certificate does not change (kube-apiserver allows no renegotiation), and node builds
// the whole chain anew on every getPeerCertificate call: read it once per socket.
const perSocket = new WeakMap<object, TlsPart>();

function tlsPart(socket: TLSSocket): TlsPart {
  let part = perSocket.get(socket);
  if (!part) {
    const peer = socket.getPeerCertificate(true);
    const present = peer && peer.raw !== undefined;
    part = { peerCertificates: [], tls: { authorized: socket.authorized === true, authorizationError: socket.authorizationError?.toString(), peer: present ? peer : undefined } };
    if (present && socket.authorized) part.peerCertificates = presentedChain({ headers: {}, ...part });
    perSocket.set(socket, part);
  }
  return part;
}

export function authnRequestOf(req: IncomingMessage): AuthnRequest {
  const socket = req.socket as Partial<TLSSocket>;
  const tls = typeof socket.getPeerCertificate === 'function' ? tlsPart(socket as TLSSocket) : { peerCertificates: [] };
  return { headers: req.headers, headersDistinct: req.headersDistinct, ...tls };
}

/** The certificates the client sent, leaf first (node links each to its issuer; a self-signed one to itself). */
export function presentedChain(req: AuthnRequest): PeerCertificate[] {
  const peer = req.tls?.peer;
  if (!peer) return [...req.peerCertificates];
  const chain: PeerCertificate[] = [];
  let cur: DetailedPeerCertificate | undefined = peer as DetailedPeerCertificate;
  while (cur && cur.raw && !chain.some((c) => c.raw.equals(cur!.raw)) && chain.length < 10) {
    chain.push(cur);
    cur = cur.issuerCertificate;
  }
  return chain;
}

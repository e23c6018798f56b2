// The AuthnRequest of an incoming HTTP(S) request: its headers and, on TLS, the client certificate as presented.
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthnRequest } from './types.ts';

export function authnRequestOf(req: IncomingMessage): AuthnRequest {
  const out: AuthnRequest = { headers: req.headers, headersDistinct: req.headersDistinct, peerCertificates: [] };
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate === 'function') {
    const peer = socket.getPeerCertificate(true);
    const present = peer && peer.raw !== undefined;
    out.tls = { authorized: socket.authorized === true, authorizationError: socket.authorizationError?.toString(), peer: present ? peer : undefined };
    if (present && socket.authorized) out.peerCertificates = presentedChain(out);
  }
  return out;
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

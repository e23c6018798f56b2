// How kube-apiserver listens, as Kubernetes does: HTTPS on --secure-port with --tls-cert-file/--tls-private-key-file
// or, without them, a self-signed pair it writes to --cert-dir (apiserver.crt/apiserver.key, reused when there);
// client certificates requested and checked against --client-ca-file (a bad one never fails the handshake: the
// x509 authenticator decides); and Kubernetes' historical plain-HTTP --insecure-port, where requests pass without
// authentication or authorization as system:unsecured.
import fs from 'node:fs';
import http, { type IncomingMessage, type Server } from 'node:http';
import net, { type Socket } from 'node:net';
import path from 'node:path';
import { TLSSocket, type DetailedPeerCertificate, type PeerCertificate } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { goFileError } from '@kemu/base';
import { PkiError, PRIVATE_MODE, PUBLIC_MODE, parseCertificates, readCertAndKey, selfSignedServingCert, writeFileAtomic } from '@kemu/pki';
import { ALL_AUTHENTICATED, SYSTEM_MASTERS, type UserInfo } from './authn/user.ts';
import type { AuthnRequest } from './authn/types.ts';
import { fastifyServerOptions, nodeServerOptions, type ConnectionLimits } from './connection-limits.ts';

export const SERVING_FLAGS = {
  'tls-cert-file': { type: 'string', default: '', usage: 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir.' },
  'tls-private-key-file': { type: 'string', default: '', usage: 'File containing the default x509 private key matching --tls-cert-file.' },
  'cert-dir': { type: 'string', default: '/var/run/kubernetes', usage: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored.' },
  'client-ca-file': { type: 'string', default: '', usage: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.' },
  'insecure-port': { type: 'int', default: 0, usage: 'The port on which to serve unsecured, unauthenticated access. It is assumed that firewall rules are set up such that this port is not reachable from outside of the cluster and that port 443 on the cluster\'s public address is proxied to this port. Set to zero to disable.' },
  'insecure-bind-address': { type: 'string', default: '127.0.0.1', usage: 'The IP address on which to serve the --insecure-port (set to 0.0.0.0 or :: for listening in all interfaces and IP families).' },
} as const;

export interface ServingFlagValues {
  'secure-port': number;
  'bind-address': string;
  'tls-cert-file': string;
  'tls-private-key-file': string;
  'cert-dir': string;
  'client-ca-file': string;
  'insecure-port': number;
  'insecure-bind-address': string;
}

/** Flag errors (exit 2); empty when the flags are fine. */
export function validateServingFlags(f: ServingFlagValues): string[] {
  const errs: string[] = [];
  if (!!f['tls-cert-file'] !== !!f['tls-private-key-file']) errs.push('--tls-cert-file and --tls-private-key-file must be given together');
  // Kubernetes' SecureServingOptions/DeprecatedInsecureServingOptions.Validate wording.
  if (f['secure-port'] < 0 || f['secure-port'] > 65535) errs.push(`--secure-port ${f['secure-port']} must be between 0 and 65535, inclusive. 0 for turning off secure port`);
  if (f['insecure-port'] < 0 || f['insecure-port'] > 65535) errs.push(`--insecure-port ${f['insecure-port']} must be between 0 and 65535, inclusive. 0 for turning off insecure (HTTP) port.`);
  if (net.isIP(f['insecure-bind-address']) === 0) errs.push(`--insecure-bind-address: invalid IP address "${f['insecure-bind-address']}"`);
  return errs;
}

/** What node's https.Server takes: the serving pair and, with --client-ca-file, the client-certificate request. */
export interface HttpsServing {
  cert: Buffer;
  key: Buffer;
  /** --client-ca-file: the authorities client certificates are verified against. */
  ca?: Buffer;
  /** Ask every client for a certificate, but let the handshake through whatever it sends. */
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
}

/** A serving or client-CA file kube-apiserver cannot use: start-up fails (exit 1) with this message. */
export class ServingError extends Error {
  override name = 'ServingError';
}

export interface ServingTls {
  https: HttpsServing;
  certFile: string;
  keyFile: string;
  /** Set when the pair was generated into --cert-dir on this start. */
  generated: boolean;
}

export interface SelfSignedHosts {
  /** --advertise-address (the certificate's CN and first SAN). */
  publicAddress: string;
  /** The `kubernetes` Service's ClusterIP. */
  serviceIP: string;
}

/**
 * The HTTPS serving configuration, or undefined when --secure-port is 0. Without --tls-cert-file the pair is
 * <cert-dir>/apiserver.crt and .key, made as Kubernetes' MaybeDefaultWithSelfSignedCerts makes it when they are
 * not there: for the advertise address, the Service IP and the kubernetes.default names, plus the bind address
 * (or "localhost" when binding every address).
 */
export async function loadServingTls(f: ServingFlagValues, hosts: SelfSignedHosts): Promise<ServingTls | undefined> {
  if (f['secure-port'] === 0) return undefined;
  let certFile = f['tls-cert-file'];
  let keyFile = f['tls-private-key-file'];
  let generated = false;
  if (!certFile) {
    certFile = path.join(f['cert-dir'], 'apiserver.crt');
    keyFile = path.join(f['cert-dir'], 'apiserver.key');
    if (!canRead(certFile) || !canRead(keyFile)) {
      const bindAll = isUnspecified(f['bind-address']);
      const pair = await selfSignedServingCert({
        host: hosts.publicAddress,
        alternateIPs: [hosts.serviceIP, ...(bindAll ? [] : [f['bind-address']])],
        alternateDNS: ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes', ...(bindAll ? ['localhost'] : [])],
      });
      try {
        writeFileAtomic(certFile, pair.certPem, PUBLIC_MODE);
        writeFileAtomic(keyFile, pair.keyPem, PRIVATE_MODE);
      } catch (e) {
        throw new ServingError(`unable to generate self signed cert: ${(e as Error).message}`);
      }
      generated = true;
    }
  }
  try {
    // Parsed and matched first, so a bad file is named in the error rather than failing inside TLS later.
    readCertAndKey(certFile, keyFile);
  } catch (e) {
    throw new ServingError(`unable to load server certificate: ${e instanceof PkiError ? e.message : String(e)}`);
  }
  const https: HttpsServing = { cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) };
  if (f['client-ca-file']) {
    const file = f['client-ca-file'];
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
      parseCertificates(text, file);
    } catch (e) {
      const why = e instanceof PkiError ? e.message : goFileError('open', file, e);
      throw new ServingError(`unable to load client CA file "${file}": ${why}`);
    }
    Object.assign(https, { ca: Buffer.from(text), requestCert: true, rejectUnauthorized: false });
  }
  return { https, certFile, keyFile, generated };
}

function canRead(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function isUnspecified(address: string): boolean {
  return address === '' || address === '0.0.0.0' || address === '::';
}

// Connections accepted on --insecure-port; their requests skip authentication and authorization.
const insecureSockets = new WeakSet<object>();

/** Whether the request came in on --insecure-port (the authentication stage then acts as system:unsecured). */
export function isInsecureRequest(req: IncomingMessage): boolean {
  return insecureSockets.has(req.socket);
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface InsecureServer {
  server: Server;
  /** host:port it listens on. */
  address: string;
  close(): Promise<void>;
}

/**
 * --insecure-port: a plain node http.Server feeding the same fastify app (and the same WebSocket upgrades),
 * with the same connection deadlines; every connection it accepts is marked insecure.
 */
export async function serveInsecure(app: FastifyInstance, upgrade: UpgradeHandler, o: { host: string; port: number; limits: ConnectionLimits }): Promise<InsecureServer> {
  await app.ready();
  const fastifyOpts = fastifyServerOptions(o.limits);
  const server = http.createServer(nodeServerOptions(o.limits), (req, res) => app.routing(req, res));
  server.keepAliveTimeout = fastifyOpts.keepAliveTimeout;
  server.requestTimeout = fastifyOpts.requestTimeout;
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => fastifyOpts.clientErrorHandler(err, socket));
  server.on('connection', (socket: Socket) => insecureSockets.add(socket));
  server.on('upgrade', upgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  const address = typeof a === 'object' && a ? (a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`) : String(a);
  return {
    server,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

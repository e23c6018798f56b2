// The apiserver's client for kubelets' HTTPS API (kubeletclient.MakeTransport): it presents
// --kubelet-client-certificate/--kubelet-client-key, verifies the kubelet's serving certificate against
// --kubelet-certificate-authority when one is given (with none it does not verify, as Kubernetes; a request
// may also ask to skip verification, insecureSkipTLSVerifyBackend), and gives up a dial after --kubelet-timeout.
// Responses are node IncomingMessages: the caller streams them (pipe keeps backpressure) and destroys them
// when its own client goes away, which closes the kubelet connection too.
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '@kemu/api';
import { nodeConnectionInfo, joinHostPort, type ConnectionInfo } from './connection-info.ts';
import { goRequestError } from './go-errors.ts';
import { DEFAULT_KUBELET_PORT, DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES, type KubeletClientConfig } from './options.ts';

/** Go's http.Transport TLSHandshakeTimeout, as utilnet.SetTransportDefaults leaves it. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** A request that got no response; the message is Go's (goRequestError). */
export class KubeletRequestError extends Error {}

export interface KubeletRequestOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer;
  insecureSkipTLSVerify?: boolean;
}

export const DEFAULT_KUBELET_CLIENT_CONFIG: KubeletClientConfig = {
  preferredAddressTypes: DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES,
  defaultPort: DEFAULT_KUBELET_PORT,
  dialTimeoutMs: 5000,
};

export class KubeletClient {
  private readonly verifying: https.Agent;
  private readonly insecure: https.Agent;

  constructor(readonly config: KubeletClientConfig = DEFAULT_KUBELET_CLIENT_CONFIG) {
    const tls = { ...(config.cert ? { cert: config.cert } : {}), ...(config.key ? { key: config.key } : {}) };
    this.verifying = new https.Agent({ keepAlive: true, ...tls, ...(config.ca ? { ca: config.ca } : {}), rejectUnauthorized: config.ca !== undefined });
    this.insecure = new https.Agent({ keepAlive: true, ...tls, rejectUnauthorized: false });
  }

  /** Where `node`'s kubelet listens; throws NoPreferredAddressError when it has none of the preferred addresses. */
  connectionInfo(node: KubeObject): ConnectionInfo {
    return nodeConnectionInfo(node, this.config.preferredAddressTypes, this.config.defaultPort);
  }

  /** The URL of `path` (and query) on a kubelet. */
  url(info: ConnectionInfo, path: string, query: string): URL {
    return new URL(`${info.scheme}://${joinHostPort(info.hostname, info.port)}${path}${query ? `?${query}` : ''}`);
  }

  /** GETs `url`; resolves with the response once its headers arrive, rejects with KubeletRequestError. */
  get(url: URL, opts: { insecureSkipTLSVerify?: boolean } = {}): Promise<IncomingMessage> {
    return this.request(url, opts).then((r) => {
      if ('socket' in r) throw new KubeletRequestError(`unexpected upgrade from ${url.href}`);
      return r.response;
    });
  }

  /**
   * Sends a request (any method, headers and body: the proxies, the streaming upgrades); resolves with the
   * response once its headers arrive, or with the upgraded connection when the kubelet switches protocols.
   */
  request(url: URL, opts: KubeletRequestOptions = {}): Promise<{ response: IncomingMessage } | { response: IncomingMessage; socket: Duplex; head: Buffer }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const hostPort = url.host;
    const upgrading = Object.keys(opts.headers ?? {}).some((k) => k.toLowerCase() === 'upgrade');
    return new Promise((resolve, reject) => {
      const req = https.request(url, {
        method: opts.method ?? 'GET',
        agent: opts.insecureSkipTLSVerify ? this.insecure : this.verifying,
        headers: { 'user-agent': 'kube-apiserver', ...(opts.headers ?? {}) },
      });
      let timer: NodeJS.Timeout | undefined;
      const fail = (e: unknown) => {
        if (timer) clearTimeout(timer);
        reject(new KubeletRequestError(goRequestError(url.href, hostPort, host, e)));
      };
      const giveUp = (code: string, ms: number) => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => req.destroy(Object.assign(new Error(code), { code })), ms);
      };
      req.on('socket', (socket) => {
        // --kubelet-timeout bounds the dial (Go's net.Dialer timeout), then the TLS handshake has Go's 10 s; nothing
        // bounds the response, as a follow may be silent for long.
        if (!socket.connecting) return;
        if (this.config.dialTimeoutMs > 0) giveUp('KEMU_DIAL_TIMEOUT', this.config.dialTimeoutMs);
        socket.once('connect', () => giveUp('KEMU_TLS_HANDSHAKE_TIMEOUT', this.config.tlsHandshakeTimeoutMs ?? TLS_HANDSHAKE_TIMEOUT_MS));
        socket.once('secureConnect', () => clearTimeout(timer));
      });
      req.on('error', fail);
      const settled = () => {
        if (timer) clearTimeout(timer);
        req.off('error', fail);
        // A failure after the headers ends the body early; the reader sees 'aborted'/'close' on res.
        req.on('error', () => undefined);
      };
      req.on('response', (response) => {
        settled();
        // An upgrade the kubelet answered without switching: the kubelet may have joined this connection to a
        // pod's server (/kemu/proxy), so it is closed after this answer instead of going back to the pool.
        if (upgrading) req.shouldKeepAlive = false;
        resolve({ response });
      });
      req.on('upgrade', (response, socket, head) => {
        settled();
        resolve({ response, socket, head });
      });
      if (opts.body && opts.body.length > 0) req.end(opts.body);
      else req.end();
    });
  }

  close(): void {
    this.verifying.destroy();
    this.insecure.destroy();
  }
}

// The emulated servers of one pod: a connection to a port of the pod's network namespace reaches the running
// container that listens there (listeners.ts), over an in-memory connection. HTTP listeners are node
// http.Servers fed those connections; echo listeners write back what they read.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Pod } from '@kemu/api';
import { duplexPair } from './duplex-pair.ts';
import { listenersOf, type Listener } from './listeners.ts';

export interface PodServerView {
  pod: Pod;
  /** Whether the named container is running now (only running containers listen). */
  running(container: string): boolean;
  now(): number;
}

const servers = new WeakMap<Listener, http.Server>();

function httpServer(l: Extract<Listener, { kind: 'http' }>): http.Server {
  let s = servers.get(l);
  if (!s) {
    s = http.createServer(l.handler);
    // nginx's keepalive_timeout: an idle client connection closes after 75 s.
    s.keepAliveTimeout = 75_000;
    // A server without an upgrade handler answers an Upgrade request as an ordinary one, as nginx does.
    if (l.upgrade) s.on('upgrade', l.upgrade);
    servers.set(l, s);
  }
  return s;
}

/** Listeners are rebuilt per pod object; a cache keyed by the pod object keeps one server per port. */
const byPod = new WeakMap<Pod, Map<number, Listener>>();

export function podListeners(view: PodServerView): Map<number, { container: string; listener: Listener }> {
  const pod = view.pod;
  const hostname = pod.spec.hostname ?? pod.metadata.name ?? '';
  const podIP = pod.status?.podIP;
  const out = new Map<number, { container: string; listener: Listener }>();
  let cached = byPod.get(pod);
  if (!cached) {
    cached = new Map();
    for (const c of pod.spec.containers) {
      for (const l of listenersOf(c, { hostname, ...(podIP ? { podIP } : {}), now: view.now, pod })) {
        if (!cached.has(l.port)) cached.set(l.port, Object.assign(l, { container: c.name }));
      }
    }
    byPod.set(pod, cached);
  }
  for (const [port, l] of cached) {
    const container = (l as Listener & { container: string }).container;
    if (view.running(container)) out.set(port, { container, listener: l });
  }
  return out;
}

/** A connection to `port` in the pod, or undefined when nothing listens there (connection refused). */
export function connectPod(view: PodServerView, port: number): Duplex | undefined {
  const found = podListeners(view).get(port);
  if (!found) return undefined;
  const [client, server] = duplexPair();
  const l = found.listener;
  if (l.kind === 'http') {
    Object.assign(server, { remoteAddress: '127.0.0.1', remotePort: 0, setTimeout: () => server, setNoDelay: () => server, setKeepAlive: () => server });
    httpServer(l).emit('connection', server);
  } else {
    server.pipe(server);
  }
  return client;
}

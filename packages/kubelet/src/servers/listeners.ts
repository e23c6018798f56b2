// Which ports an emulated container listens on, and what answers there, per image: nginx and httpd serve
// HTTP on 80 (whatever containerPorts say, as the real ones); agnhost netexec on --http-port (8080) and
// serve-hostname on --port (9376); hashicorp/http-echo on -listen (:5678); jmalloc/echo-server on $PORT (8080),
// with WebSockets; any other container accepts TCP on each declared containerPort and echoes what it reads.
// registry.k8s.io/hpa-example serves `OK!` on 80.
import type { Container, Pod } from '@kemu/api';
import { cpuLimit, cpuPerRequest } from '../usage/request-cost.ts';
import { parseImageReference } from '../images/reference.ts';
import { echoServerHandler, echoServerPort, echoServerUpgrade, type UpgradeHandler } from './echo-server.ts';
import { hpaExampleHandler, httpdHandler, httpEchoHandler, netexecHandler, nginxHandler, serveHostnameHandler, type PageHandler, type ServedBy } from './http-pages.ts';

/** An HTTP listener answers requests with `handler`; one with `upgrade` also takes upgrades (WebSockets). */
export type Listener = { port: number; kind: 'http'; handler: PageHandler; upgrade?: UpgradeHandler } | { port: number; kind: 'echo' };

/** A flag's value in Go's flag syntax: -name=v, --name=v, -name v, --name v. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    for (const dash of ['-', '--']) {
      if (a === `${dash}${name}`) return argv[i + 1];
      if (a.startsWith(`${dash}${name}=`)) return a.slice(dash.length + name.length + 1);
    }
  }
  return undefined;
}

function portFlag(argv: readonly string[], name: string, fallback: number): number {
  const v = flagValue(argv, name);
  // -listen=:5678 and -listen=0.0.0.0:5678 alike.
  const n = Number(v?.slice(v.lastIndexOf(':') + 1));
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : fallback;
}

function repoOf(image: string): { repository: string; tag?: string } {
  const ref = parseImageReference(image);
  if ('error' in ref) return { repository: image };
  return { repository: ref.repository, ...(ref.tag !== undefined ? { tag: ref.tag } : {}) };
}

const NGINX = /^docker\.io\/(library|nginxinc|bitnami)\/nginx(-unprivileged)?$/;
const HTTPD = /^docker\.io\/(library\/)?httpd$/;
const AGNHOST = /\/e2e-test-images\/agnhost$|\/kubernetes-e2e-test-images\/agnhost$/;
const HTTP_ECHO = /\/http-echo$/;
const HPA_EXAMPLE = /\/(hpa-example)$/;
const ECHO_SERVER = /^docker\.io\/jmalloc\/echo-server$/;

/**
 * The container's listeners, given who it is (hostname, pod IP) for the replies. With its `pod`, a server that
 * burns CPU per request answers once that time has passed at the CPU limit (without: at once, for probes).
 */
export function listenersOf(c: Container, by: Omit<ServedBy, 'argv' | 'tag'> & { pod?: Pod }): Listener[] {
  const { repository, tag } = repoOf(c.image ?? '');
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  const served: ServedBy = { ...by, argv, ...(tag !== undefined ? { tag } : {}) };
  if (NGINX.test(repository)) return [{ port: repository.endsWith('-unprivileged') ? 8080 : 80, kind: 'http', handler: nginxHandler(served) }];
  if (HTTPD.test(repository)) return [{ port: 80, kind: 'http', handler: httpdHandler(served) }];
  if (AGNHOST.test(repository)) {
    const sub = argv.find((a) => !a.startsWith('-') && !a.endsWith('/agnhost') && a !== 'agnhost');
    if (sub === 'netexec') return [{ port: portFlag(argv, 'http-port', 8080), kind: 'http', handler: netexecHandler(served) }];
    if (sub === 'serve-hostname') return [{ port: portFlag(argv, 'port', 9376), kind: 'http', handler: serveHostnameHandler(served) }];
  }
  if (HPA_EXAMPLE.test(repository)) {
    const workMs = by.pod ? (cpuPerRequest(by.pod, c) / Math.min(1, cpuLimit(c) || 1)) * 1000 : 0;
    return [{ port: 80, kind: 'http', handler: hpaExampleHandler(workMs) }];
  }
  if (ECHO_SERVER.test(repository)) return [{ port: echoServerPort(c), kind: 'http', handler: echoServerHandler(c, served), upgrade: echoServerUpgrade(c, served) }];
  if (HTTP_ECHO.test(repository)) return [{ port: portFlag(argv, 'listen', 5678), kind: 'http', handler: httpEchoHandler(flagValue(argv, 'text') ?? '') }];
  return (c.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP').map((p) => ({ port: p.containerPort, kind: 'echo' as const }));
}

/**
 * The ports a container's emulated server listens on when kemu knows the image's server (nginx, httpd, agnhost,
 * http-echo); undefined for any other image, whose real ports kemu cannot know (its declared ports echo).
 */
export function knownServerPorts(c: Container): number[] | undefined {
  const ls = listenersOf(c, { hostname: '', now: () => 0 });
  return ls.some((l) => l.kind === 'http') ? ls.map((l) => l.port) : undefined;
}

/**
 * The HTTP status the container's emulated server answers a GET of `path` on `port` with (nginx's 404 for an
 * unknown path); undefined when no emulated HTTP server listens there. The handlers answer synchronously, so the
 * status is read off a request that never touches a socket.
 */
export function httpStatusOf(c: Container, port: number, path: string): number | undefined {
  const l = listenersOf(c, { hostname: '', now: () => 0 }).find((x) => x.port === port);
  if (l?.kind !== 'http') return undefined;
  let status: number | undefined;
  const req = { method: 'GET', url: path, headers: {}, socket: { remoteAddress: '127.0.0.1', remotePort: 0 } };
  const res = {
    sendDate: true,
    writeHead(s: number) {
      status = s;
      return res;
    },
    end() {
      return res;
    },
  };
  l.handler(req as unknown as Parameters<PageHandler>[0], res as unknown as Parameters<PageHandler>[1]);
  return status;
}

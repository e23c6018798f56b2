// What the HTTP servers of well-known images answer, as the real ones do (no container runs): nginx's and
// httpd's default pages and headers, agnhost's netexec and serve-hostname (the kubernetes.io tutorials' images)
// hashicorp/http-echo and registry.k8s.io/hpa-example (the HPA walkthrough's php-apache). Each is a request handler for node's http.Server, fed in-memory connections.
import type http from 'node:http';

/** Who answers: what the handlers put in their replies. */
export interface ServedBy {
  hostname: string;
  podIP?: string;
  /** The image's tag, when it names a version ("1.14.2"). */
  tag?: string;
  /** The container's arguments (command + args). */
  argv: readonly string[];
  now(): number;
}

export type PageHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** nginx's mainline at the time of kemu's image catalogue, for tags that name no version. */
const NGINX_LATEST = '1.27.3';
const HTTPD_LATEST = '2.4.62';

const NGINX_INDEX = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

/** A version-like tag ("1.14.2", "1.25-alpine" → "1.25") or the fallback. */
export function versionOf(tag: string | undefined, fallback: string): string {
  const m = /^(\d+(?:\.\d+){0,2})/.exec(tag ?? '');
  if (!m?.[1]) return fallback;
  const parts = m[1].split('.');
  // A partial tag ("1.25") names the series: its first release.
  while (parts.length < 3) parts.push('0');
  return parts.join('.');
}

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body: string, head: boolean): void {
  res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(head ? undefined : body);
}

function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

export function nginxHandler(by: ServedBy): PageHandler {
  const server = `nginx/${versionOf(by.tag, NGINX_LATEST)}`;
  const started = by.now();
  return (req, res) => {
    res.sendDate = true;
    const head = req.method === 'HEAD';
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && !head) {
      return send(res, 405, { Server: server, 'Content-Type': 'text/html' }, errorPage(405, 'Not Allowed', server), false);
    }
    if (path === '/' || path === '/index.html') {
      const etag = `"${Math.floor(started / 1000).toString(16)}-${Buffer.byteLength(NGINX_INDEX).toString(16)}"`;
      return send(res, 200, { Server: server, 'Content-Type': 'text/html', 'Last-Modified': httpDate(started), ETag: etag, 'Accept-Ranges': 'bytes' }, NGINX_INDEX, head);
    }
    send(res, 404, { Server: server, 'Content-Type': 'text/html' }, errorPage(404, 'Not Found', server), head);
  };
}

function errorPage(code: number, text: string, server: string): string {
  return `<html>\r\n<head><title>${code} ${text}</title></head>\r\n<body>\r\n<center><h1>${code} ${text}</h1></center>\r\n<hr><center>${server}</center>\r\n</body>\r\n</html>\r\n`;
}

export function httpdHandler(by: ServedBy): PageHandler {
  const server = `Apache/${versionOf(by.tag, HTTPD_LATEST)} (Unix)`;
  const body = '<html><body><h1>It works!</h1></body></html>\n';
  return (req, res) => {
    res.sendDate = true;
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/' || path === '/index.html') return send(res, 200, { Server: server, 'Content-Type': 'text/html', 'Accept-Ranges': 'bytes' }, body, req.method === 'HEAD');
    const notFound = `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n`;
    send(res, 404, { Server: server, 'Content-Type': 'text/html; charset=iso-8859-1' }, notFound, req.method === 'HEAD');
  };
}

/** Go's time.Time String() of a UTC instant ("2026-12-03 19:30:00.123 +0000 UTC"). */
function goTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

/** agnhost netexec's HTTP endpoints a learner meets: /, /hostname, /echo, /clientip, /healthz, /shell is not emulated. */
export function netexecHandler(by: ServedBy): PageHandler {
  const text = (res: http.ServerResponse, body: string, status = 200) => send(res, status, { 'Content-Type': 'text/plain; charset=utf-8' }, body, false);
  return (req, res) => {
    res.sendDate = true;
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/':
        return text(res, `NOW: ${goTime(by.now())}`);
      case '/hostname':
        return text(res, by.hostname);
      case '/echo':
        return text(res, url.searchParams.get('msg') ?? '');
      case '/clientip':
        return text(res, `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`);
      case '/healthz':
        return text(res, '');
      case '/header':
        return text(res, String(req.headers[(url.searchParams.get('key') ?? '').toLowerCase()] ?? ''));
      case '/exit':
        return text(res, '');
      default:
        return text(res, '404 page not found\n', 404);
    }
  };
}

/** agnhost serve-hostname: every request gets the hostname, no newline. */
export function serveHostnameHandler(by: ServedBy): PageHandler {
  return (_req, res) => {
    res.sendDate = true;
    send(res, 200, { 'Content-Type': 'text/plain; charset=utf-8' }, by.hostname, false);
  };
}

/** hashicorp/http-echo: the -text, a newline, and its two X-App headers, on every path. */
export function httpEchoHandler(text: string): PageHandler {
  return (req, res) => {
    res.sendDate = true;
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health') return send(res, 200, { 'Content-Type': 'application/json', 'X-App-Name': 'http-echo', 'X-App-Version': '1.0.0' }, '{"status":"ok"}\n', false);
    send(res, 200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-App-Name': 'http-echo', 'X-App-Version': '1.0.0' }, `${text}\n`, req.method === 'HEAD');
  };
}

/**
 * registry.k8s.io/hpa-example (php:5-apache with an index.php that burns CPU, then echoes `OK!` with no
 * newline): the answer comes once the request's CPU time has passed at the container's CPU limit (`workMs`),
 * as a throttled container would give it.
 */
export function hpaExampleHandler(workMs: number): PageHandler {
  const server = 'Apache/2.4.25 (Debian)';
  return (req, res) => {
    res.sendDate = true;
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/' && path !== '/index.php') {
      const notFound = `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL ${path ?? ''} was not found on this server.</p>\n<hr>\n<address>${server} Server at ${req.headers.host ?? 'localhost'} Port 80</address>\n</body></html>\n`;
      return send(res, 404, { Server: server, 'Content-Type': 'text/html; charset=iso-8859-1' }, notFound, req.method === 'HEAD');
    }
    const answer = () => send(res, 200, { Server: server, 'X-Powered-By': 'PHP/5.6.40', 'Content-Type': 'text/html; charset=UTF-8' }, 'OK!', req.method === 'HEAD');
    if (workMs > 0) setTimeout(answer, workMs);
    else answer();
  };
}

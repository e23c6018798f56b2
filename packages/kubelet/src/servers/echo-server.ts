// jmalloc/echo-server, the echo image of many ingress and WebSocket tutorials: on $PORT (8080) every HTTP
// request gets "Request served by <hostname>" and the request itself back (request line, Host, headers sorted
// by name, body) as text/plain; a WebSocket upgrade on any path gets the same first line as a text message,
// then every message back as it came (text or binary). SEND_SERVER_HOSTNAME=false (or the
// X-Send-Server-Hostname header) leaves the hostname out.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Container } from '@kemu/api';
import { WebSocketServer } from 'ws';
import type { PageHandler, ServedBy } from './http-pages.ts';

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The literal value of a container's environment variable. */
function envValue(c: Container, name: string): string | undefined {
  return c.env?.find((e) => e.name === name)?.value;
}

/** The port the server listens on: $PORT, else 8080. */
export function echoServerPort(c: Container): number {
  const n = Number(envValue(c, 'PORT'));
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : 8080;
}

/** Go's canonical header key ("x-forwarded-for" → "X-Forwarded-For"). */
function canonical(key: string): string {
  return key.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase());
}

function sendsHostname(c: Container, req: http.IncomingMessage): boolean {
  const header = req.headers['x-send-server-hostname'];
  const v = typeof header === 'string' && header !== '' ? header : (envValue(c, 'SEND_SERVER_HOSTNAME') ?? '');
  return v.toLowerCase() !== 'false';
}

/** The echo of a request: its line, Host and the other headers by name (writeRequest). */
function describe(req: http.IncomingMessage, body: Buffer): string {
  let out = `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}\n\nHost: ${req.headers.host ?? ''}\n`;
  const headers = new Map<string, string[]>();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const key = canonical((req.rawHeaders[i] ?? '').toLowerCase());
    if (key === 'Host') continue;
    headers.set(key, [...(headers.get(key) ?? []), req.rawHeaders[i + 1] ?? '']);
  }
  for (const key of [...headers.keys()].sort()) for (const v of headers.get(key) ?? []) out += `${key}: ${v}\n`;
  return body.length > 0 ? `${out}\n${body.toString('utf8')}` : out;
}

export function echoServerHandler(c: Container, by: ServedBy): PageHandler {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const text = `${sendsHostname(c, req) ? `Request served by ${by.hostname}\n\n` : ''}${describe(req, Buffer.concat(chunks))}`;
      res.sendDate = true;
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
  };
}

function isWebSocketUpgrade(req: http.IncomingMessage): boolean {
  const tokens = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim().toLowerCase());
  return tokens(req.headers.connection).includes('upgrade') && tokens(req.headers.upgrade).includes('websocket');
}

export function echoServerUpgrade(c: Container, by: ServedBy): UpgradeHandler {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  return (req, socket, head) => {
    if (!isWebSocketUpgrade(req)) {
      // Another protocol: an ordinary echo, as the Go server treats it.
      const text = `${sendsHostname(c, req) ? `Request served by ${by.hostname}\n\n` : ''}${describe(req, Buffer.alloc(0))}`;
      socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nDate: ${new Date(by.now()).toUTCString()}\r\nConnection: close\r\n\r\n${text}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(sendsHostname(c, req) ? `Request served by ${by.hostname}` : '');
      ws.on('message', (data: Buffer, isBinary: boolean) => ws.send(data, { binary: isBinary }));
      ws.on('error', () => ws.terminate());
    });
  };
}

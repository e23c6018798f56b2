// The control channel between `kemu up` (the supervisor) and the other kemu commands: HTTP on a Unix socket.
// Going through the supervisor (not signalling pids directly) is what lets it tell a crash, which it restarts,
// from `kemu stop`/`kemu kill`, which it must leave down.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

export type Action = 'stop' | 'kill' | 'pause' | 'unpause' | 'start' | 'down' | 'join' | 'nodegroup';
// nodegroup: the cluster-autoscaler's cloud calls (node-groups.ts).
export const ACTIONS: readonly Action[] = ['stop', 'kill', 'pause', 'unpause', 'start', 'down', 'join', 'nodegroup'];

/** A request's JSON body: string fields only (`join` sends its token). */
export type ControlBody = Record<string, string>;

export type ControlHandler = (action: Action, name: string | undefined, body: ControlBody) => Promise<string>;

function parseBody(text: string): ControlBody {
  if (!text) return {};
  const v: unknown = JSON.parse(text);
  const out: ControlBody = {};
  if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** DIR/kemu.sock, or a short path in the temp dir when DIR is too deep for a socket path (108 bytes). */
export function controlSocketPath(dataDir: string): string {
  const p = path.join(dataDir, 'kemu.sock');
  if (Buffer.byteLength(p) < 100) return p;
  const h = crypto.createHash('sha1').update(dataDir).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `kemu-${h}.sock`);
}

export async function serveControl(socketPath: string, handler: ControlHandler): Promise<http.Server> {
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    const parts = (req.url ?? '/').split('/').filter(Boolean).map(decodeURIComponent);
    const action = parts[0] as Action | undefined;
    const reply = (code: number, body: Record<string, unknown>) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || !action || !ACTIONS.includes(action)) {
      reply(404, { error: `unknown request ${req.method} ${req.url}` });
      return;
    }
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => {
      let body: ControlBody;
      try {
        body = parseBody(text);
      } catch {
        reply(400, { error: 'request body is not JSON' });
        return;
      }
      handler(action, parts[1], body).then(
        (message) => reply(200, { message }),
        (e: unknown) => reply(400, { error: e instanceof Error ? e.message : String(e) }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}

export class ControlError extends Error {}

/** Sends one request to the supervisor; rejects with ControlError carrying its message. */
export function sendControl(socketPath: string, action: Action, name?: string, timeoutMs = 60_000, body?: ControlBody): Promise<string> {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const req = http.request(
      {
        socketPath,
        method: 'POST',
        path: `/${action}${name ? `/${encodeURIComponent(name)}` : ''}`,
        timeout: timeoutMs,
        ...(data ? { headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const rec = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
          if (res.statusCode === 200) resolve(typeof rec.message === 'string' ? rec.message : 'ok');
          else reject(new ControlError(typeof rec.error === 'string' ? rec.error : `supervisor answered ${res.statusCode}`));
        });
      },
    );
    req.on('timeout', () => req.destroy(new ControlError(`supervisor did not answer within ${timeoutMs}ms`)));
    req.on('error', (e) => reject(e instanceof ControlError ? e : new ControlError(`cannot reach the kemu supervisor: ${e.message}`)));
    req.end(data);
  });
}

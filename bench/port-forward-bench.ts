// Port-forward benchmark: HTTP requests/s to the emulated nginx through the kubelet's /portForward over one
// SPDY/3.1 session, each request on its own error/data stream pair as `kubectl port-forward` + curl makes them.
// In-process (kubelet side and client side in one process, no apiserver hop), so it measures kemu's SPDY
// framing, header compression and the emulated server. Prints requests/s, p50/p99 latency and CPU.
// usage: npm run bench -- port-forward [--seconds 10] [--concurrency 8]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Pod } from '@kemu/api';
import { realClock, type Logger } from '@kemu/base';
import type { LoggedPod } from '../packages/kubelet/src/server/container-logs.ts';
import { servePortForward } from '../packages/kubelet/src/server/port-forward.ts';
import { SpdySession } from '../packages/kubelet/src/spdy/session.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { closedLoop } from './lib/closed-loop.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'port-forward',
  {
    seconds: { type: 'float', default: 10, usage: 'how long requests are sent, in seconds' },
    concurrency: { type: 'int', default: 8, usage: 'requests in flight at once' },
  },
  (f) => atLeast(f, 1, ['concurrency']) ?? atLeast(f, 0, ['seconds'], true),
);

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'bench' }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27.3' }] }, status: {} } as Pod;
const worker = { current: pod, lifecycle: { containers: [{ name: 'nginx', state: { kind: 'running' } }] } } as unknown as LoggedPod;
const logger = { info() {}, error() {}, warn() {}, debug() {} } as unknown as Logger;

function dial(port: number): Promise<SpdySession> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/portForward/default/web', method: 'POST', headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'portforward.k8s.io' } });
    req.on('upgrade', (_res, socket) => resolve(new SpdySession(socket, 'client')));
    req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

let nextID = 0;
async function oneRequest(session: SpdySession): Promise<void> {
  const id = String(nextID++);
  const error = session.openStream(new Map([['streamtype', ['error']], ['port', ['80']], ['requestid', [id]]]));
  error.end();
  error.resume();
  const data = session.openStream(new Map([['streamtype', ['data']], ['port', ['80']], ['requestid', [id]]]));
  await data.waitReply();
  await new Promise<void>((resolve, reject) => {
    const req = http.request({ host: 'localhost', path: '/', headers: { connection: 'close' }, createConnection: () => data as Duplex as never }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

await runBench('port-forward', async (work) => {
  const server = http.createServer((_req, res) => res.end());
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => servePortForward(req, socket, head, new URL(req.url ?? '/', 'http://x').pathname, { findPod: () => worker, clock: realClock, logger }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  work.defer(() => new Promise<void>((r) => server.close(() => r())));
  const session = await dial((server.address() as AddressInfo).port);
  work.defer(() => session.close());
  for (let i = 0; i < 200; i++) await oneRequest(session);
  const r = await closedLoop(flags.seconds, flags.concurrency, () => oneRequest(session));
  console.log(`port-forward: ${r.count} requests in ${r.seconds.toFixed(1)} s over one SPDY session, concurrency ${flags.concurrency}`);
  console.log(`  ${r.perSecond.toFixed(0)} requests/s, latency p50 ${r.q(0.5).toFixed(2)} ms, p99 ${r.q(0.99).toFixed(2)} ms`);
  console.log(`  CPU ${r.cpuPercent.toFixed(0)}% of one core (client and kubelet side together)`);
});

// The kubelet API's /exec/{podNamespace}/{podID}/{containerName} and /attach/… (pkg/kubelet/server's getExec
// and getAttach; the {podUID} form is read too): WebSocket only — the remotecommand channel protocols
// v5.channel.k8s.io … channel.k8s.io (streams/protocol.ts). SPDY/3.1 is not served: kubectl ≥ 1.30 and the
// Python and JavaScript clients ask for a WebSocket first. Errors are the kubelet's plain text with its codes:
// 400 for bad options, 404 `pod does not exist`, 500 `container not found ("x")` (the runtime's words) for a
// container that is not running.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Pod } from '@kemu/api';
import type { Clock, HealthRoutes, HealthUpgrade, Logger } from '@kemu/base';
import { runAttach } from '../streams/attach.ts';
import { Channels } from '../streams/channels.ts';
import { ContainerStates, runningContainer, type RunningContainer, type StreamedPod } from '../streams/containers.ts';
import { runExec } from '../streams/exec.ts';
import { refreshMounts } from '../streams/mounts.ts';
import { negotiate, PROTOCOLS } from '../streams/protocol.ts';
import type { ShellNetwork } from '../shell/network.ts';

export interface StreamingDeps {
  findPod(namespace: string, name: string): StreamedPod | undefined;
  clock: Clock;
  logger: Logger;
  /** The cluster network a pod's exec sessions reach (wget, curl). */
  network?: (pod: Pod) => ShellNetwork | undefined;
}

type Kind = 'exec' | 'attach';

interface Target {
  kind: Kind;
  namespace: string;
  pod: string;
  container: string;
}

function parsePath(path: string): Target | undefined {
  const m = /^\/(exec|attach)\/(.*)$/.exec(path);
  if (!m) return undefined;
  const parts = (m[2] ?? '').split('/');
  if ((parts.length !== 3 && parts.length !== 4) || parts.some((p) => p === '')) return undefined;
  try {
    const [namespace = '', pod = '', ...rest] = parts.map((p) => decodeURIComponent(p));
    return { kind: m[1] as Kind, namespace, pod, container: rest[rest.length - 1] ?? '' };
  } catch {
    return undefined;
  }
}

/** The kubelet reads "1" (what the apiserver sends); "true" is taken too, for clients that call it directly. */
function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === '1' || v === 'true';
}

class Refusal {
  constructor(
    readonly code: number,
    readonly text: string,
  ) {}
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };

function refuse(socket: Duplex, r: Refusal): void {
  socket.end(`HTTP/1.1 ${r.code} ${REASONS[r.code] ?? ''}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(r.text)}\r\nconnection: close\r\n\r\n${r.text}`);
}

interface Checked {
  target: Target;
  container: RunningContainer;
  q: URLSearchParams;
}

/** Everything the kubelet checks before it upgrades: options, the pod, a running container. */
function check(req: http.IncomingMessage, target: Target, deps: StreamingDeps, states: ContainerStates): Checked | Refusal {
  if (req.method !== 'GET' && req.method !== 'POST') return new Refusal(405, '405: Method Not Allowed');
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  // remotecommand.NewOptions.
  if (!flag(q, 'stdin') && !flag(q, 'stdout') && !flag(q, 'stderr')) return new Refusal(400, 'you must specify at least 1 of stdin, stdout, stderr');
  const pod = deps.findPod(target.namespace, target.pod);
  if (!pod) return new Refusal(404, 'pod does not exist');
  const c = runningContainer(pod, target.container, states);
  if ('error' in c) return new Refusal(500, c.error);
  return { target, container: c, q };
}

/** The upgrade handler for the kubelet's secure server (startHealthServer's `upgrade`). */
export function streamingUpgrade(deps: StreamingDeps): HealthUpgrade {
  const states = new ContainerStates(deps.network);
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => negotiate([...offered])?.name ?? false });
  return (req, socket, head, path) => {
    const target = parsePath(path);
    if (!target) return false;
    const checked = check(req, target, deps, states);
    if (checked instanceof Refusal) {
      refuse(socket, checked);
      return true;
    }
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      refuse(socket, new Refusal(400, `unable to upgrade: kemu's kubelet serves ${target.kind} over WebSocket only (${PROTOCOLS.map((p) => p.name).join(', ')}), not ${req.headers.upgrade ?? 'this protocol'}`));
      return true;
    }
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s);
    const protocol = negotiate(offered);
    if (!protocol) {
      refuse(socket, new Refusal(400, `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${PROTOCOLS.map((p) => p.name).join(' ')}]`));
      return true;
    }
    const { q, container } = checked;
    const tty = flag(q, 'tty');
    // The volumes are read before the upgrade completes: the client sends stdin only after the 101.
    void refreshMounts(container).then(() => wss.handleUpgrade(req, socket, head, (ws) => {
      const ch = new Channels(ws, protocol, tty);
      const run =
        target.kind === 'exec'
          ? runExec(ch, container, { argv: q.getAll('command'), stdin: flag(q, 'stdin') })
          : runAttach(ch, container, { stdin: flag(q, 'stdin'), stdout: flag(q, 'stdout'), stderr: flag(q, 'stderr') }, deps.clock);
      run.catch((e: unknown) => {
        deps.logger.error({ err: String(e), path }, `Failed to serve ${target.kind}`);
        ws.terminate();
      });
    }));
    return true;
  };
}

/** /exec and /attach without an upgrade: the same checks, then the kubelet's refusal to stream without one. */
export function streamingRoutes(deps: StreamingDeps): HealthRoutes {
  const states = new ContainerStates(deps.network);
  return (req, res, path) => {
    const target = parsePath(path);
    if (!target) return false;
    const checked = check(req, target, deps, states);
    const r = checked instanceof Refusal ? checked : new Refusal(400, 'Upgrade request required');
    res.writeHead(r.code, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(r.text);
    return true;
  };
}

/** The node of the pod an /exec or /attach path names (its SubjectAccessReview is about that node). */
export function streamNodeOf(path: string, findPod: StreamingDeps['findPod']): string | undefined {
  const t = parsePath(path);
  return t ? findPod(t.namespace, t.pod)?.current.spec.nodeName : undefined;
}

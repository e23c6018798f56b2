// The kubelet API's GET /containerLogs/{podNamespace}/{podID}/{containerName} (pkg/kubelet/server's
// getContainerLogs, kubelet_pods' GetKubeletContainerLogs and validateContainerLogStatus, kuberuntime's ReadLogs):
// the pod is looked up on every node this process emulates; the container instance read is the running one,
// else the last terminated one, or with previous=true the one before. Bodies are text/plain; charset=utf-8
// and errors are the kubelet's plain messages with its status codes. follow streams (chunked) until the
// container instance ends or the client goes away.
import type http from 'node:http';
import type { ContainerStatus, Pod } from '@kemu/api';
import type { Clock, HealthRoutes, Logger } from '@kemu/base';
import type { ContainerRunState, ContainerRuntime, PodLifecycle, Terminated } from '../pods/lifecycle.ts';
import { LogQueryError, LogWriter, parseLogOptions, sinceOf, tailOf } from '../logs/read.ts';
import type { LogInstance } from '../logs/store.ts';

/** A pod this process runs (a PodWorker): the pod as last seen, and its emulated containers. */
export interface LoggedPod {
  readonly current: Pod;
  readonly lifecycle: PodLifecycle | undefined;
}

export interface ContainerLogsDeps {
  /** The pod namespace/name on any node of this process. */
  findPod(namespace: string, name: string): LoggedPod | undefined;
  clock: Clock;
  logger: Logger;
}

const TEXT = 'text/plain; charset=utf-8';
/** A follower looks at the log at least this often (the kubelet checks its container every second too). */
const FOLLOW_CHECK_MS = 1000;

function plain(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': TEXT });
  res.end(body);
}

/** What validateContainerLogStatus reads of a container status. */
interface LogState {
  state: 'running' | 'terminated' | 'waiting' | 'none';
  containerID: string;
  waitingReason?: string;
  lastContainerID?: string;
}

function fromRuntime(c: ContainerRuntime): LogState {
  const s: ContainerRunState = c.state;
  const last: Terminated | undefined = c.lastState;
  const lastID = last ? { lastContainerID: last.containerID } : {};
  if (s.kind === 'running') return { state: 'running', containerID: s.containerID, ...lastID };
  if (s.kind === 'terminated') return { state: 'terminated', containerID: s.containerID, ...lastID };
  return { state: 'waiting', containerID: '', waitingReason: s.reason, ...lastID };
}

function fromStatus(s: ContainerStatus): LogState {
  const lastID = s.lastState?.terminated ? { lastContainerID: s.lastState.terminated.containerID ?? '' } : {};
  if (s.state?.running) return { state: 'running', containerID: s.containerID ?? '', ...lastID };
  if (s.state?.terminated) return { state: 'terminated', containerID: s.state.terminated.containerID ?? '', ...lastID };
  if (s.state?.waiting) return { state: 'waiting', containerID: '', waitingReason: s.state.waiting.reason ?? '', ...lastID };
  return { state: 'none', containerID: '', ...lastID };
}

/** The container ID to read, or the kubelet's error for why there is none. */
export function logContainerID(s: LogState | undefined, container: string, pod: string, previous: boolean): { id: string } | { error: string } {
  if (!s) return { error: `container "${container}" in pod "${pod}" is not available` };
  const last = s.lastContainerID;
  if (previous) return last ? { id: last } : { error: `previous terminated container "${container}" in pod "${pod}" not found` };
  if (s.state === 'running') return { id: s.containerID };
  if (s.state === 'terminated') {
    if (s.containerID) return { id: s.containerID };
    return last ? { id: last } : { error: `container "${container}" in pod "${pod}" is terminated` };
  }
  if (last !== undefined) return last ? { id: last } : { error: `container "${container}" in pod "${pod}" is terminated` };
  if (s.state === 'waiting') {
    if (s.waitingReason === 'ErrImagePull') return { error: `container "${container}" in pod "${pod}" is waiting to start: image can't be pulled` };
    if (s.waitingReason === 'ImagePullBackOff') return { error: `container "${container}" in pod "${pod}" is waiting to start: trying and failing to pull image` };
    return { error: `container "${container}" in pod "${pod}" is waiting to start: ${s.waitingReason ?? ''}` };
  }
  return { error: `container "${container}" in pod "${pod}" is waiting to start - no logs yet` };
}

function specHas(pod: Pod, name: string): boolean {
  const spec = pod.spec as Pod['spec'] & { ephemeralContainers?: { name: string }[] };
  return [...spec.containers, ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])].some((c) => c.name === name);
}

/** The state and log of one container of a pod this process runs. */
function locate(w: LoggedPod, name: string): { state: LogState | undefined; logs?: (id: string) => LogInstance | undefined } {
  const lc = w.lifecycle;
  const runtime = lc ? [...lc.containers, ...lc.initContainers].find((c) => c.name === name) : undefined;
  if (runtime) return { state: fromRuntime(runtime), logs: (id) => runtime.logs.get(id) };
  const st = w.current.status;
  const status = [...(st?.containerStatuses ?? []), ...(st?.initContainerStatuses ?? [])].find((c) => c.name === name);
  return { state: status ? fromStatus(status) : undefined };
}

function segments(path: string): string[] | undefined {
  const parts = path.split('/').slice(2);
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined;
  }
}

export async function serveContainerLogs(req: http.IncomingMessage, res: http.ServerResponse, path: string, deps: ContainerLogsDeps): Promise<void> {
  const parts = segments(path);
  if (!parts) return plain(res, 404, '404: Page Not Found');
  if (req.method !== 'GET') {
    res.setHeader('allow', 'GET');
    return plain(res, 405, '405: Method Not Allowed');
  }
  const [namespace = '', podID = '', container = ''] = parts;
  let opts;
  try {
    opts = parseLogOptions(new URL(req.url ?? '/', 'http://x').searchParams);
  } catch (e) {
    if (e instanceof LogQueryError) return plain(res, e.status, e.message);
    throw e;
  }
  const worker = deps.findPod(namespace, podID);
  if (!worker) return plain(res, 404, `pod "${podID}" does not exist`);
  if (!specHas(worker.current, container)) return plain(res, 404, `container "${container}" not found in pod "${podID}"`);
  // The PodLogsQuerySplitStreams gate is off (its 1.32 default): only All may be asked for.
  if (opts.stream !== undefined && opts.stream !== 'All') {
    return plain(res, 400, `unable to return the given log stream: "${opts.stream}". Please enable PodLogsQuerySplitStreams feature gate in kubelet`);
  }
  const where = locate(worker, container);
  const picked = logContainerID(where.state, container, podID, opts.previous);
  if ('error' in picked) return plain(res, 400, picked.error);
  const log = where.logs?.(picked.id);

  const now = deps.clock.now();
  const writer = new LogWriter(opts, sinceOf(opts, now));
  res.writeHead(200, { 'content-type': TEXT, 'transfer-encoding': 'chunked' });
  if (!log) return void res.end();
  let next = log.pump(now);
  const first = writer.format(tailOf(log.kept(), opts.tailLines));
  let cursor = log.end;
  if (first) res.write(first);
  if (!opts.follow || log.finished || writer.exhausted) return void res.end();

  let gone = false;
  res.on('close', () => (gone = true));
  while (!gone) {
    const wait = next === undefined ? FOLLOW_CHECK_MS : Math.min(FOLLOW_CHECK_MS, next - deps.clock.now());
    await log.changed(wait);
    // A pod deleted (or gone with its node) ends the stream even if its containers were never stopped.
    if (gone || deps.findPod(namespace, podID) !== worker) break;
    next = log.pump(deps.clock.now());
    const text = writer.format(log.since(cursor));
    cursor = log.end;
    if (text) res.write(text);
    if (log.finished || writer.exhausted) break;
  }
  res.end();
}

/** The node of the pod a kubelet API path names (its SubjectAccessReview is about that node). */
export function podNodeOf(path: string, findPod: ContainerLogsDeps['findPod']): string | undefined {
  const parts = path.startsWith('/containerLogs/') ? segments(path) : undefined;
  return parts ? findPod(parts[0] ?? '', parts[1] ?? '')?.current.spec.nodeName : undefined;
}

/** The kubelet API's routes for the secure port's server (startHealthServer's `routes`). */
export function kubeletRoutes(deps: ContainerLogsDeps): HealthRoutes {
  return async (req, res, path) => {
    if (path !== '/containerLogs' && !path.startsWith('/containerLogs/')) return false;
    try {
      await serveContainerLogs(req, res, path, deps);
    } catch (e) {
      deps.logger.error({ err: String(e), path }, 'Failed to serve container logs');
      if (!res.headersSent) plain(res, 500, 'internal error');
      else res.end();
    }
    return true;
  };
}

// What an emulated probe answers, read from the pod spec the way container commands are (docs/kubelet.md):
// an exec probe runs its command through command.ts (`true` passes, `false`/`exit 1` fail, `sleep 5` takes
// 5 s); httpGet, tcpSocket and grpc probes pass — except that an httpGet or tcpSocket probe to a port the
// image's emulated server does not listen on (nginx probed on 8080) is refused, and an httpGet probe of an
// emulated HTTP server fails when its status is not 200–399 (nginx's 404 for /healthz). Annotations make any probe fail, pass only after a while,
// or answer slowly. The failure output is the kubelet's prober's (pkg/probe/{exec,http,tcp,grpc}).
import type { Container, IntOrString, Probe } from '@kemu/api';
import { formatDuration } from '@kemu/base';
import { httpStatusOf, knownServerPorts } from '../servers/listeners.ts';
import { annotation, containerFiles, probeCommand, type Run } from './command.ts';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** The word the kubelet's events use: "Liveness probe failed: …". */
export const PROBE_LABEL: Record<ProbeKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** `kemu.dev/<kind>-probe-fail-after`: seconds after the container started from which the probe fails (0: always). */
export const probeFailAfter = (kind: ProbeKind) => `kemu.dev/${kind}-probe-fail-after`;
/** `kemu.dev/<kind>-probe-pass-after`: the probe fails until this many seconds after the container started. */
export const probePassAfter = (kind: ProbeKind) => `kemu.dev/${kind}-probe-pass-after`;
/** `kemu.dev/<kind>-probe-seconds`: how long each probe takes to answer (beyond timeoutSeconds it times out). */
export const probeSeconds = (kind: ProbeKind) => `kemu.dev/${kind}-probe-seconds`;

export interface ProbeOutcome {
  ok: boolean;
  /** Time from the probe's start to its result (at most the timeout). */
  latencyMs: number;
  /** The prober's output, shown after "<Kind> probe failed: ". */
  output: string;
}

export interface ProbePlan {
  kind: ProbeKind;
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
  /** The kill's grace period after a liveness/startup failure, when the probe sets its own. */
  terminationGraceMs?: number;
  /** The outcome of a probe started `sinceStartMs` after the container started. */
  run(sinceStartMs: number, podIP: string | undefined): ProbeOutcome;
  /** The first time (ms since start) after `sinceStartMs` at which run()'s outcome may change; Infinity: never. */
  changesAfter(sinceStartMs: number): number;
}

function seconds(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}

/** A named port resolves through the container's ports (probe.ResolveContainerPort). */
function resolvePort(port: IntOrString, c: Container): string {
  if (typeof port === 'number') return String(port);
  const named = c.ports?.find((p) => p.name === port);
  return named ? String(named.containerPort) : port;
}

/**
 * The kubelet's prober output when the probe's port refuses connections: an httpGet/tcpSocket probe of the pod's
 * own address on a port the container's known emulated server (servers/listeners.ts) does not listen on.
 */
function refusedOutput(p: Probe, c: Container, podIP: string | undefined): string | undefined {
  const h = p.httpGet ?? p.tcpSocket;
  if (!h || h.host) return undefined;
  const ports = knownServerPorts(c);
  const port = resolvePort(h.port, c);
  if (!ports || ports.includes(Number(port))) return undefined;
  const addr = `${podIP ?? ''}:${port}`;
  const dial = `dial tcp ${addr}: connect: connection refused`;
  if (p.tcpSocket) return dial;
  const url = `${(p.httpGet?.scheme ?? 'HTTP').toLowerCase()}://${addr}${p.httpGet?.path || '/'}`;
  return `Get ${JSON.stringify(url)}: ${dial}`;
}

/** An httpGet probe of the pod's own emulated HTTP server: the kubelet's failure output for a status outside 200–399. */
function statusOutput(p: Probe, c: Container): string | undefined {
  const h = p.httpGet;
  if (!h || h.host) return undefined;
  const status = httpStatusOf(c, Number(resolvePort(h.port, c)), h.path || '/');
  // pkg/probe/http: 200 <= code < 400 succeeds (redirects are followed or counted as success).
  return status !== undefined && (status < 200 || status >= 400) ? `HTTP probe failed with statuscode: ${status}` : undefined;
}

/** What the handler answers when it fails or times out, as the kubelet's probers word it. */
function failureOutput(p: Probe, c: Container, podIP: string | undefined, timedOut: boolean, timeoutMs: number, exec: Run | undefined): string {
  const ip = podIP ?? '';
  if (p.exec) {
    // ExecSync's DeadlineExceeded becomes `command "<argv joined>" timed out`; otherwise the command's output.
    return timedOut ? `command ${JSON.stringify((p.exec.command ?? []).join(' '))} timed out` : exec?.output ?? '';
  }
  if (p.httpGet) {
    const scheme = (p.httpGet.scheme ?? 'HTTP').toLowerCase();
    const url = `${scheme}://${p.httpGet.host || ip}:${resolvePort(p.httpGet.port, c)}${p.httpGet.path || '/'}`;
    return timedOut ? `Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : 'HTTP probe failed with statuscode: 500';
  }
  if (p.tcpSocket) {
    const addr = `${p.tcpSocket.host || ip}:${resolvePort(p.tcpSocket.port, c)}`;
    return timedOut ? `dial tcp ${addr}: i/o timeout` : `dial tcp ${addr}: connect: connection refused`;
  }
  if (p.grpc) {
    return timedOut ? `timeout: health rpc did not complete within ${formatDuration(timeoutMs)}` : 'service unhealthy (responded with "NOT_SERVING")';
  }
  return '';
}

/** The plan for one of a container's probes; undefined when the container has none of that kind. */
export function probePlan(c: Container, kind: ProbeKind, annotations?: Record<string, string>): ProbePlan | undefined {
  const p = kind === 'liveness' ? c.livenessProbe : kind === 'readiness' ? c.readinessProbe : c.startupProbe;
  if (!p) return undefined;
  // The apiserver defaults these; the minimums are the API's (timeoutSeconds, periodSeconds and thresholds ≥ 1).
  const timeoutMs = Math.max(1, p.timeoutSeconds ?? 1) * 1000;
  const files = p.exec ? containerFiles(c) : [];
  // The exec command's answer at a moment (it changes only when a file it reads comes or goes).
  const execAt = (since: number): Run | undefined => (p.exec ? probeCommand(p.exec.command ?? [], { events: files, sinceMs: since }) : undefined);
  const exec = execAt(0);
  const failAfter = seconds(annotation(annotations, probeFailAfter(kind), c.name));
  const passAfter = seconds(annotation(annotations, probePassAfter(kind), c.name));
  const answerMs = seconds(annotation(annotations, probeSeconds(kind), c.name));
  // An exec command that never ends (or takes longer than the timeout) times out; others answer at once.
  const latency = answerMs ?? (exec ? (exec.runMs ?? Infinity) : 0);
  const timedOut = latency > timeoutMs;
  // The emulated server's answer to the probe's request does not change over time.
  const badStatus = statusOutput(p, c);
  const breaks = [passAfter, failAfter, ...files.map((f) => f.at)].filter((t): t is number => t !== undefined);
  const grace = kind !== 'readiness' ? p.terminationGracePeriodSeconds : undefined;
  return {
    kind,
    initialDelayMs: Math.max(0, p.initialDelaySeconds ?? 0) * 1000,
    periodMs: Math.max(1, p.periodSeconds ?? 10) * 1000,
    timeoutMs,
    successThreshold: Math.max(1, p.successThreshold ?? 1),
    failureThreshold: Math.max(1, p.failureThreshold ?? 3),
    ...(grace !== undefined ? { terminationGraceMs: Math.max(0, grace) * 1000 } : {}),
    run(since, podIP) {
      const refused = refusedOutput(p, c, podIP);
      if (refused !== undefined) return { ok: false, latencyMs: 0, output: refused };
      if (badStatus !== undefined && !timedOut) return { ok: false, latencyMs: Math.min(latency, timeoutMs), output: badStatus };
      const inWindow = (passAfter === undefined || since >= passAfter) && (failAfter === undefined || since < failAfter);
      const now = files.length ? execAt(since) : exec;
      const ok = !timedOut && (now ? now.exitCode === 0 : true) && inWindow;
      const latencyMs = Math.min(latency, timeoutMs);
      if (ok) return { ok, latencyMs, output: now?.output ?? '' };
      return { ok, latencyMs, output: failureOutput(p, c, podIP, timedOut, timeoutMs, now) };
    },
    changesAfter(since) {
      let next = Infinity;
      for (const t of breaks) if (t > since && t < next) next = t;
      return next;
    },
  };
}

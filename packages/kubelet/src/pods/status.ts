// Renders a PodLifecycle as the PodStatus the kubelet reports: phase, conditions (with stable
// lastTransitionTime), container statuses with Kubernetes' reasons, IPs, startTime and QoS class.
import { createHash } from 'node:crypto';
import { formatTime, type Condition, type ContainerState, type ContainerStatus, type Pod, type PodStatus } from '@kemu/api';
import type { ContainerRuntime, PodLifecycle, Terminated } from './lifecycle.ts';

export interface StatusContext {
  now: number;
  hostIP: string;
  /** Absent for hostNetwork pods before they start, or when no address could be given. */
  podIP?: string;
  previous?: PodStatus;
}

const imageIDs = new Map<string, string>();

/** "nginx" → "docker.io/library/nginx:latest", as containerd reports image names. */
export function normalizeImage(image: string): string {
  if (!image) return image;
  let name = image;
  const slash = name.indexOf('/');
  const first = slash >= 0 ? name.slice(0, slash) : '';
  if (slash < 0) name = `docker.io/library/${name}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') name = `docker.io/${name}`;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !lastPart.includes('@')) name += ':latest';
  return name;
}

/** A stable digest per image, in the repo@sha256 form of a real imageID. */
export function imageID(image: string): string {
  let id = imageIDs.get(image);
  if (!id) {
    const norm = normalizeImage(image);
    const repo = norm.replace(/[:@][^/]*$/, '');
    id = `${repo}@sha256:${createHash('sha256').update(norm).digest('hex')}`;
    if (imageIDs.size < 10_000) imageIDs.set(image, id);
  }
  return id;
}

function terminatedState(t: Terminated): ContainerState {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      startedAt: formatTime(t.startedAt),
      finishedAt: formatTime(t.finishedAt),
      containerID: t.containerID,
    },
  };
}

function containerStatus(lc: PodLifecycle, c: ContainerRuntime): ContainerStatus {
  const s = c.state;
  let state: ContainerState;
  let containerID: string | undefined;
  if (s.kind === 'waiting') {
    state = { waiting: s.message ? { reason: s.reason, message: s.message } : { reason: s.reason } };
    containerID = c.lastState?.containerID;
  } else if (s.kind === 'running') {
    state = { running: { startedAt: formatTime(s.startedAt) } };
    containerID = s.containerID;
  } else {
    state = terminatedState(s);
    containerID = s.containerID;
  }
  const out: ContainerStatus = {
    name: c.name,
    state,
    lastState: c.lastState ? terminatedState(c.lastState) : {},
    ready: c.ephemeral ? false : c.init && !c.sidecar ? s.kind === 'terminated' && s.exitCode === 0 : lc.isReady(c),
    restartCount: c.restartCount,
    image: normalizeImage(c.image),
    imageID: s.kind === 'waiting' && c.restartCount === 0 ? '' : imageID(c.image),
  };
  // The prober manager sets `started` for init containers and containers only.
  if (!c.ephemeral) out.started = lc.isStarted(c);
  if (containerID) out.containerID = containerID;
  return out;
}

function condition(type: string, ok: boolean, now: number, previous: Condition[] | undefined, reason?: string, message?: string): Condition {
  const status = ok ? 'True' : 'False';
  const prev = previous?.find((c) => c.type === type);
  const since = prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : formatTime(now);
  const c: Condition = { type, status, lastProbeTime: null, lastTransitionTime: since };
  if (!ok && reason) c.reason = reason;
  if (!ok && message) c.message = message;
  if (ok && reason === 'PodCompleted') c.reason = reason;
  return c;
}

export function qosClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      const l = lim[r];
      const q = req[r] ?? l;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export function renderStatus(pod: Pod, lc: PodLifecycle, ctx: StatusContext): PodStatus {
  const { now, previous } = ctx;
  const prevConds = previous?.conditions;
  const phase = lc.phase();
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const initStatuses = lc.initContainers.map((c) => containerStatus(lc, c));
  const statuses = lc.containers.map((c) => containerStatus(lc, c));

  const notInit = lc.initContainers.filter((c) => !c.sidecar && !(c.state.kind === 'terminated' && c.state.exitCode === 0)).map((c) => c.name);
  const initialized = lc.initialized() || (terminal && notInit.length === 0);
  const unready = statuses.filter((s) => !s.ready).map((s) => s.name);
  const gates = (pod.spec.readinessGates ?? []).map((g) => g.conditionType);
  const gatesOk = gates.every((g) => prevConds?.find((c) => c.type === g)?.status === 'True');
  const containersReady = unready.length === 0 && !terminal;
  const sandboxReady = !terminal;

  const conditions: Condition[] = [
    condition('PodReadyToStartContainers', sandboxReady, now, prevConds),
    terminal && initialized
      ? condition('Initialized', true, now, prevConds, 'PodCompleted')
      : condition('Initialized', initialized, now, prevConds, 'ContainersNotInitialized', `containers with incomplete status: [${notInit.join(' ')}]`),
    terminal
      ? condition('Ready', false, now, prevConds, 'PodCompleted')
      : condition('Ready', containersReady && gatesOk, now, prevConds, containersReady ? 'ReadinessGatesNotReady' : 'ContainersNotReady',
          containersReady ? `corresponding condition of pod readiness gate "${gates.find((g) => prevConds?.find((c) => c.type === g)?.status !== 'True') ?? ''}" does not exist.` : `containers with unready status: [${unready.join(' ')}]`),
    terminal
      ? condition('ContainersReady', false, now, prevConds, 'PodCompleted')
      : condition('ContainersReady', containersReady, now, prevConds, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`),
  ];
  // PodScheduled (set by the scheduler) and readiness gates' conditions (set by others) pass through.
  const ours = new Set(conditions.map((c) => c.type));
  for (const c of prevConds ?? []) if (!ours.has(c.type)) conditions.push(c);
  if (!conditions.some((c) => c.type === 'PodScheduled')) conditions.push(condition('PodScheduled', true, now, prevConds));

  const status: PodStatus = {
    phase,
    conditions,
    hostIP: ctx.hostIP,
    hostIPs: [{ ip: ctx.hostIP }],
    startTime: formatTime(lc.startTime),
    containerStatuses: statuses,
    qosClass: previous?.qosClass ?? qosClass(pod),
  };
  if (ctx.podIP) {
    status.podIP = ctx.podIP;
    status.podIPs = [{ ip: ctx.podIP }];
  }
  if (initStatuses.length) status.initContainerStatuses = initStatuses;
  if (lc.ephemeralContainers.length) status.ephemeralContainerStatuses = lc.ephemeralContainers.map((c) => containerStatus(lc, c));
  if (lc.reason) status.reason = lc.reason;
  if (lc.message) status.message = lc.message;
  return status;
}

// kubectl get pods: Name, Ready, Status, Restarts, Age | IP, Node, Nominated Node, Readiness Gates —
// with printPod's status reasoning (Init:x/y, CrashLoopBackOff, Completed, Terminating, ...).
import { parseTime } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, int, list, nameCol, obj, str } from './util.ts';

function isRestartableInit(c: Record<string, unknown> | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

function finishedAt(cs: Record<string, unknown>): number {
  const t = obj(obj(cs.lastState).terminated).finishedAt;
  return typeof t === 'string' ? parseTime(t) : NaN;
}

function terminatedReason(t: Record<string, unknown>, prefix: string): string {
  if (str(t.reason) !== '') return prefix + str(t.reason);
  if (int(t.signal) !== 0) return `${prefix}Signal:${int(t.signal)}`;
  return `${prefix}ExitCode:${int(t.exitCode)}`;
}

export const podPrinter: TablePrinter = {
  columns: [
    nameCol,
    col('Ready'),
    col('Status'),
    col('Restarts'),
    ageCol,
    col('IP', 'string', 1),
    col('Node', 'string', 1),
    col('Nominated Node', 'string', 1),
    col('Readiness Gates', 'string', 1),
  ],
  cells(pod, now) {
    const spec = obj(pod.spec);
    const status = obj(pod.status);
    const containers = list(spec.containers);
    const initSpecs = list(spec.initContainers);
    const conditions = list(status.conditions);
    let total = containers.length;
    let ready = 0;
    let restarts = 0;
    let restartableInitRestarts = 0;
    let lastRestart = NaN;
    let lastRestartableInitRestart = NaN;
    const later = (a: number, b: number): number => (Number.isNaN(a) || b > a ? b : a);
    let reason = str(status.reason) || str(status.phase);
    if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
    const initByName = new Map(initSpecs.map((c) => [str(c.name), c]));
    for (const c of initSpecs) if (isRestartableInit(c)) total++;

    let initializing = false;
    const initStatuses = list(status.initContainerStatuses);
    for (let i = 0; i < initStatuses.length; i++) {
      const cs = initStatuses[i] ?? {};
      const state = obj(cs.state);
      restarts += int(cs.restartCount);
      if (!Number.isNaN(finishedAt(cs))) lastRestart = later(lastRestart, finishedAt(cs));
      const restartable = isRestartableInit(initByName.get(str(cs.name)));
      if (restartable) {
        restartableInitRestarts += int(cs.restartCount);
        if (!Number.isNaN(finishedAt(cs))) lastRestartableInitRestart = later(lastRestartableInitRestart, finishedAt(cs));
      }
      const term = state.terminated === undefined ? undefined : obj(state.terminated);
      const waiting = state.waiting === undefined ? undefined : obj(state.waiting);
      if (term && int(term.exitCode) === 0) continue;
      if (restartable && cs.started === true) {
        if (cs.ready === true) ready++;
        continue;
      }
      if (term) reason = terminatedReason(term, 'Init:');
      else if (waiting && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
      else reason = `Init:${i}/${initSpecs.length}`;
      initializing = true;
      break;
    }

    const initializedTrue = conditions.some((c) => c.type === 'Initialized' && c.status === 'True');
    if (!initializing || initializedTrue) {
      restarts = restartableInitRestarts;
      lastRestart = lastRestartableInitRestart;
      let hasRunning = false;
      const statuses = list(status.containerStatuses);
      for (let i = statuses.length - 1; i >= 0; i--) {
        const cs = statuses[i] ?? {};
        const state = obj(cs.state);
        restarts += int(cs.restartCount);
        if (!Number.isNaN(finishedAt(cs))) lastRestart = later(lastRestart, finishedAt(cs));
        const waiting = state.waiting === undefined ? undefined : obj(state.waiting);
        const term = state.terminated === undefined ? undefined : obj(state.terminated);
        if (waiting && str(waiting.reason) !== '') reason = str(waiting.reason);
        else if (term) reason = terminatedReason(term, '');
        else if (cs.ready === true && state.running !== undefined) {
          hasRunning = true;
          ready++;
        }
      }
      if (reason === 'Completed' && hasRunning) {
        reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
      }
    }

    const terminal = status.phase === 'Succeeded' || status.phase === 'Failed';
    if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
    else if (pod.metadata.deletionTimestamp && !terminal) reason = 'Terminating';

    let restartsCell = String(restarts);
    if (restarts !== 0 && !Number.isNaN(lastRestart)) restartsCell = `${restarts} (${since(new Date(lastRestart).toISOString(), now)} ago)`;

    const podIPs = list(status.podIPs);
    const podIP = str(podIPs[0]?.ip) || str(status.podIP) || '<none>';
    const gates = list(spec.readinessGates);
    let gatesCell = '<none>';
    if (gates.length > 0) {
      const trueCount = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
      gatesCell = `${trueCount}/${gates.length}`;
    }
    return [
      pod.metadata.name ?? '',
      `${ready}/${total}`,
      reason,
      restartsCell,
      since(pod.metadata.creationTimestamp, now),
      podIP,
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      gatesCell,
    ];
  },
};

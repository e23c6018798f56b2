// One container's probes on the lifecycle's clock, as the kubelet's prober workers run them
// (pkg/kubelet/prober/worker.go): each probe waits initialDelaySeconds from the container's start, then runs
// every periodSeconds; a result counts once it repeats successThreshold / failureThreshold times. Until the
// startup probe succeeds only it runs; then it stops and liveness and readiness begin (readiness at once,
// as the kubelet's manual trigger does). Readiness starts as failure, liveness as success. Every failed
// probe is reported; a liveness or startup failure asks for a kill and holds that probe until a new
// container. While a probe keeps passing and its answer cannot change, no wake-ups are scheduled.
import { PROBE_LABEL, type ProbeKind, type ProbePlan } from './probe.ts';

interface ProbeState {
  plan: ProbePlan;
  /** Start of the next probe (clock ms); Infinity while nothing is due. */
  nextAt: number;
  /** A probe that started and has not answered yet. */
  pending?: { startedAt: number; at: number; ok: boolean; output: string };
  /** The result the kubelet acts on. */
  result: 'success' | 'failure' | 'unknown';
  lastOk?: boolean;
  /** How many times in a row the probe answered lastOk. */
  run: number;
  onHold: boolean;
}

export interface ProbeReport {
  kind: ProbeKind;
  /** "Liveness probe failed: HTTP probe failed with statuscode: 500" */
  message: string;
}

export interface ProbeStep {
  /** When the prober next needs attention (undefined: not until something else changes). */
  next?: number;
  /** Failed probes, in order (the Unhealthy events). */
  failures: ProbeReport[];
  /** A liveness or startup probe crossed its failure threshold: the container must be killed. */
  kill?: ProbePlan;
}

export class ContainerProber {
  private readonly states: ProbeState[];
  private startedAt = 0;

  constructor(plans: (ProbePlan | undefined)[]) {
    this.states = plans.filter((p): p is ProbePlan => p !== undefined).map((plan) => ({ plan, nextAt: Infinity, result: 'unknown', run: 0, onHold: false }));
  }

  /** The container has probes at all (a prober without any costs nothing). */
  get active(): boolean {
    return this.states.length > 0;
  }

  private state(kind: ProbeKind): ProbeState | undefined {
    return this.states.find((s) => s.plan.kind === kind);
  }

  /** A new container started at `startedAt`: every probe starts over with the kubelet's initial values. */
  reset(startedAt: number): void {
    this.startedAt = startedAt;
    for (const s of this.states) {
      s.result = s.plan.kind === 'readiness' ? 'failure' : s.plan.kind === 'liveness' ? 'success' : 'unknown';
      s.lastOk = undefined;
      s.run = 0;
      s.onHold = false;
      s.pending = undefined;
      s.nextAt = s.plan.kind === 'startup' || !this.state('startup') ? startedAt + s.plan.initialDelayMs : Infinity;
    }
  }

  /** Started: no startup probe, or it has succeeded. */
  started(): boolean {
    const s = this.state('startup');
    return !s || s.result === 'success';
  }

  /** Ready: started, and no readiness probe or its result is success. */
  ready(): boolean {
    const s = this.state('readiness');
    return this.started() && (!s || s.result === 'success');
  }

  /**
   * Runs every probe due at `now` and applies every answer due. While the pod is being deleted, liveness
   * and startup probes stop (the kubelet sets them to success for a quiet shutdown).
   */
  advance(now: number, podIP: string | undefined, podStopping: boolean): ProbeStep {
    const step: ProbeStep = { failures: [] };
    if (!this.active) return step;
    for (let guard = 0; guard < 1000; guard++) {
      const s = this.due(now);
      if (!s) break;
      if (s.pending && s.pending.at <= now) {
        const answer = s.pending;
        s.pending = undefined;
        this.apply(s, answer.startedAt, answer.ok, answer.output, now, step);
        continue;
      }
      if (podStopping && s.plan.kind !== 'readiness') {
        s.nextAt = Infinity;
        continue;
      }
      this.probe(s, now, podIP);
    }
    let next: number | undefined;
    for (const s of this.states) {
      const t = Math.min(s.pending?.at ?? Infinity, s.nextAt);
      if (t !== Infinity && (next === undefined || t < next)) next = t;
    }
    if (next !== undefined) step.next = next;
    return step;
  }

  /** The earliest probe with something due at `now`: an answer, or the start of a probe. */
  private due(now: number): ProbeState | undefined {
    let best: ProbeState | undefined;
    let bestAt = Infinity;
    for (const s of this.states) {
      const t = s.pending ? s.pending.at : s.onHold ? Infinity : s.nextAt;
      if (t <= now && t < bestAt) {
        best = s;
        bestAt = t;
      }
    }
    return best;
  }

  private probe(s: ProbeState, now: number, podIP: string | undefined): void {
    const { plan } = s;
    // A probe that fell more than a period behind (a kubelet restart, a late timer) runs once, not once per missed tick.
    if (now - s.nextAt >= plan.periodMs) s.nextAt += Math.floor((now - s.nextAt) / plan.periodMs) * plan.periodMs;
    const at = s.nextAt;
    const outcome = plan.run(at - this.startedAt, podIP);
    // The next tick comes a period later, or when this probe answers if it takes longer than that.
    s.nextAt = at + Math.max(plan.periodMs, outcome.latencyMs);
    s.pending = { startedAt: at, at: at + outcome.latencyMs, ok: outcome.ok, output: outcome.output };
  }

  private apply(s: ProbeState, probedAt: number, ok: boolean, output: string, now: number, step: ProbeStep): void {
    const { plan } = s;
    if (!ok) step.failures.push({ kind: plan.kind, message: `${PROBE_LABEL[plan.kind]} probe failed: ${output}` });
    if (s.lastOk === ok) s.run++;
    else {
      s.lastOk = ok;
      s.run = 1;
    }
    if (ok ? s.run >= plan.successThreshold : s.run >= plan.failureThreshold) {
      const wasStarted = this.started();
      s.result = ok ? 'success' : 'failure';
      if (!ok && plan.kind !== 'readiness') {
        s.onHold = true;
        s.run = 0;
        step.kill ??= plan;
        return;
      }
      if (plan.kind === 'startup' && ok && !wasStarted) this.onStarted(s, now);
    }
    // A passing probe whose answer cannot change until a known time skips the ticks in between.
    if (ok && s.result === 'success' && s.nextAt !== Infinity) {
      const change = this.startedAt + plan.changesAfter(probedAt - this.startedAt);
      if (change === Infinity) s.nextAt = Infinity;
      else if (change > s.nextAt) s.nextAt += Math.ceil((change - s.nextAt) / plan.periodMs) * plan.periodMs;
    }
  }

  /** The startup probe passed: it stops, and liveness and readiness begin. */
  private onStarted(startup: ProbeState, now: number): void {
    startup.nextAt = Infinity;
    for (const s of this.states) {
      if (s === startup) continue;
      s.nextAt = Math.max(now, this.startedAt + s.plan.initialDelayMs);
    }
  }
}

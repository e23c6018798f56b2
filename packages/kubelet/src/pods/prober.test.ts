// The probe state machine on a timeline: initial delays, periods, thresholds, startup gating, timeouts and
// the kills liveness/startup failures ask for. Each case lists what a user would see, second by second.
import { describe, expect, it } from 'vitest';
import type { Container } from '@kemu/api';
import { probePlan } from './probe.ts';
import { ContainerProber } from './prober.ts';

/** Runs a prober from a container start at 0 until `untilMs` (or a kill); logs failures, kills and readiness changes. */
function timeline(c: Container, annotations: Record<string, string> | undefined, untilMs: number, stoppingFrom = Infinity): string[] {
  const prober = new ContainerProber((['startup', 'liveness', 'readiness'] as const).map((k) => probePlan(c, k, annotations)));
  prober.reset(0);
  const log: string[] = [];
  let ready = prober.ready();
  let started = prober.started();
  let now = 0;
  for (;;) {
    const step = prober.advance(now, '10.244.0.5', now >= stoppingFrom);
    const at = `${now / 1000}s`;
    for (const f of step.failures) log.push(`${at} ${f.message}`);
    if (prober.started() !== started) log.push(`${at} started=${(started = prober.started())}`);
    if (prober.ready() !== ready) log.push(`${at} ready=${(ready = prober.ready())}`);
    if (step.kill) {
      log.push(`${at} kill (${step.kill.kind})`);
      break;
    }
    if (step.next === undefined || step.next > untilMs) break;
    now = step.next;
  }
  return log;
}

const http = { httpGet: { path: '/healthz', port: 8080 } };

describe('ContainerProber', () => {
  const cases: [string, Container, Record<string, string> | undefined, number, string[]][] = [
    ['no probes: ready and started at once', { name: 'c' }, undefined, 60_000, []],
    ['readiness passes after initialDelaySeconds, then nothing is scheduled', { name: 'c', readinessProbe: { ...http, initialDelaySeconds: 5 } }, undefined, 600_000, ['5s ready=true']],
    ['readiness with successThreshold 2 needs two passes', { name: 'c', readinessProbe: { ...http, periodSeconds: 3, successThreshold: 2 } }, undefined, 60_000, ['3s ready=true']],
    ['a failing readiness probe: never ready, one Unhealthy per period, no kill', { name: 'c', readinessProbe: { exec: { command: ['false'] }, periodSeconds: 2 } }, undefined, 6000,
      ['0s Readiness probe failed: ', '2s Readiness probe failed: ', '4s Readiness probe failed: ', '6s Readiness probe failed: ']],
    ['readiness turns false after failureThreshold failures', { name: 'c', readinessProbe: { ...http, periodSeconds: 5, failureThreshold: 2 } }, { 'kemu.dev/readiness-probe-fail-after': '10' }, 20_000,
      ['0s ready=true', '10s Readiness probe failed: HTTP probe failed with statuscode: 500', '15s Readiness probe failed: HTTP probe failed with statuscode: 500', '15s ready=false',
        '20s Readiness probe failed: HTTP probe failed with statuscode: 500']],
    ['liveness: killed at the third failure (defaults: period 10 s, threshold 3)', { name: 'c', livenessProbe: http }, { 'kemu.dev/liveness-probe-fail-after': '30' }, 600_000,
      ['30s Liveness probe failed: HTTP probe failed with statuscode: 500', '40s Liveness probe failed: HTTP probe failed with statuscode: 500',
        '50s Liveness probe failed: HTTP probe failed with statuscode: 500', '50s kill (liveness)']],
    ['liveness waits for initialDelaySeconds', { name: 'c', livenessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 15, periodSeconds: 1, failureThreshold: 1 } },
      { 'kemu.dev/liveness-probe-fail-after': '0' }, 60_000, ['15s Liveness probe failed: dial tcp 10.244.0.5:80: connect: connection refused', '15s kill (liveness)']],
    ['an exec liveness probe over its timeout fails when the timeout passes', { name: 'c', livenessProbe: { exec: { command: ['sleep', '10'] }, timeoutSeconds: 2, periodSeconds: 5, failureThreshold: 2 } },
      undefined, 60_000, ['2s Liveness probe failed: command "sleep 10" timed out', '7s Liveness probe failed: command "sleep 10" timed out', '7s kill (liveness)']],
    ['a startup probe gates readiness; readiness runs as soon as it passes', { name: 'c', startupProbe: { ...http, periodSeconds: 2, failureThreshold: 10 }, readinessProbe: { ...http, periodSeconds: 10 } },
      { 'kemu.dev/startup-probe-pass-after': '5' }, 60_000,
      ['0s Startup probe failed: HTTP probe failed with statuscode: 500', '2s Startup probe failed: HTTP probe failed with statuscode: 500', '4s Startup probe failed: HTTP probe failed with statuscode: 500',
        '6s started=true', '6s ready=true']],
    ['liveness does not run before the startup probe passes', { name: 'c', startupProbe: { ...http, periodSeconds: 10, failureThreshold: 30 }, livenessProbe: { ...http, periodSeconds: 1, failureThreshold: 1 } },
      { 'kemu.dev/startup-probe-pass-after': '20', 'kemu.dev/liveness-probe-fail-after': '0' }, 60_000,
      ['0s Startup probe failed: HTTP probe failed with statuscode: 500', '10s Startup probe failed: HTTP probe failed with statuscode: 500',
        '20s Liveness probe failed: HTTP probe failed with statuscode: 500', '20s started=true', '20s ready=true', '20s kill (liveness)']],
    ['a startup probe that never passes kills after failureThreshold', { name: 'c', startupProbe: { grpc: { port: 9090 }, periodSeconds: 1, failureThreshold: 2 } },
      { 'kemu.dev/startup-probe-fail-after': '0' }, 60_000,
      ['0s Startup probe failed: service unhealthy (responded with "NOT_SERVING")', '1s Startup probe failed: service unhealthy (responded with "NOT_SERVING")', '1s kill (startup)']],
    ['the docs\' exec liveness example: killed once /tmp/healthy is gone for three probes', {
      name: 'liveness', args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'],
      livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 },
    }, undefined, 600_000, [
      "30s Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
      "35s Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
      "40s Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
      '40s kill (liveness)',
    ]],
    ['while the pod is deleted liveness stops; readiness goes on', { name: 'c', livenessProbe: { ...http, periodSeconds: 1, failureThreshold: 1 }, readinessProbe: { ...http, periodSeconds: 1, failureThreshold: 1 } },
      { 'kemu.dev/liveness-probe-fail-after': '3', 'kemu.dev/readiness-probe-fail-after': '3' }, 4000, [
        '0s ready=true', '3s Readiness probe failed: HTTP probe failed with statuscode: 500', '3s ready=false', '4s Readiness probe failed: HTTP probe failed with statuscode: 500']],
  ];
  it.each(cases)('%s', (name, c, annotations, untilMs, want) => {
    expect(timeline(c, annotations, untilMs, name.startsWith('while the pod is deleted') ? 2500 : Infinity)).toEqual(want);
  });

  it('a new container starts over: readiness false until probed again, liveness holds no failure', () => {
    const c: Container = { name: 'c', readinessProbe: { ...http, initialDelaySeconds: 2 }, livenessProbe: { ...http, periodSeconds: 1, failureThreshold: 1 } };
    const p = new ContainerProber((['startup', 'liveness', 'readiness'] as const).map((k) => probePlan(c, k, { 'kemu.dev/liveness-probe-fail-after': '5' })));
    p.reset(0);
    p.advance(2000, undefined, false);
    expect(p.ready()).toBe(true);
    expect(p.advance(5000, undefined, false).kill?.kind).toBe('liveness');
    p.reset(6000);
    expect(p.ready()).toBe(false);
    const step = p.advance(6000, undefined, false);
    expect(step.kill).toBeUndefined();
    // Readiness waits for its initial delay; liveness passes until 5 s after this start, so it sleeps until then.
    expect(step.next).toBe(8000);
    p.advance(8000, undefined, false);
    expect(p.ready()).toBe(true);
  });

  it('a probe far behind (a kubelet restart) runs once, not once per missed period', () => {
    const c: Container = { name: 'c', readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } };
    const p = new ContainerProber([probePlan(c, 'readiness')]);
    p.reset(0);
    expect(p.advance(3_600_000, undefined, false).failures).toHaveLength(1);
  });
});

// How a probe is read from the spec: exec commands through command.ts, other handlers pass unless an
// annotation says otherwise; failure output as the kubelet's probers word it.
import { describe, expect, it } from 'vitest';
import type { Container, Probe } from '@kemu/api';
import { probePlan, type ProbeKind, type ProbeOutcome } from './probe.ts';

// An image whose server kemu does not emulate: its probes pass unless annotated.
const web = (probe: Probe, kind: ProbeKind = 'liveness'): Container => ({
  name: 'web',
  image: 'registry.example.com/web:v1',
  ports: [{ name: 'http', containerPort: 8080 }],
  [kind === 'liveness' ? 'livenessProbe' : kind === 'readiness' ? 'readinessProbe' : 'startupProbe']: probe,
});

describe('probePlan: the emulated servers refuse ports they do not listen on and answer with their status', () => {
  const nginx = (probe: Probe): Container => ({ name: 'web', image: 'nginx:1.27.3', ports: [{ name: 'alt', containerPort: 8080 }], livenessProbe: probe });
  it.each([
    ['httpGet on nginx\'s port passes', { httpGet: { path: '/', port: 80 } }, { ok: true, latencyMs: 0, output: '' }],
    ['httpGet of a path nginx does not serve fails with its 404', { httpGet: { path: '/healthz', port: 80 } }, { ok: false, latencyMs: 0, output: 'HTTP probe failed with statuscode: 404' }],
    ['httpGet of nginx\'s page passes', { httpGet: { path: '/index.html', port: 80 } }, { ok: true, latencyMs: 0, output: '' }],
    ['httpGet on another port is refused', { httpGet: { path: '/healthz', port: 'alt' } }, { ok: false, latencyMs: 0, output: 'Get "http://10.244.0.5:8080/healthz": dial tcp 10.244.0.5:8080: connect: connection refused' }],
    ['tcpSocket on another port is refused', { tcpSocket: { port: 81 } }, { ok: false, latencyMs: 0, output: 'dial tcp 10.244.0.5:81: connect: connection refused' }],
    ['a probe of another host is not judged', { httpGet: { host: 'example.com', port: 81 } }, { ok: true, latencyMs: 0, output: '' }],
  ] as [string, Probe, ProbeOutcome][])('%s', (_name, probe, want) => {
    expect(probePlan(nginx(probe), 'liveness')?.run(0, '10.244.0.5')).toEqual(want);
  });
});

describe('probePlan: outcomes', () => {
  const cases: [string, Probe, Record<string, string> | undefined, number, ProbeOutcome][] = [
    ['exec true passes', { exec: { command: ['true'] } }, undefined, 0, { ok: true, latencyMs: 0, output: '' }],
    ['exec false fails with empty output', { exec: { command: ['false'] } }, undefined, 0, { ok: false, latencyMs: 0, output: '' }],
    ['exec sh -c "exit 1" fails', { exec: { command: ['sh', '-c', 'exit 1'] } }, undefined, 0, { ok: false, latencyMs: 0, output: '' }],
    ['exec output is the echo', { exec: { command: ['sh', '-c', 'echo not ready; exit 3'] } }, undefined, 0, { ok: false, latencyMs: 0, output: 'not ready\n' }],
    ['an unknown program answers 0', { exec: { command: ['pg_isready', '-U', 'postgres'] } }, undefined, 0, { ok: true, latencyMs: 0, output: '' }],
    ['a script of unknown programs answers 0', { exec: { command: ['sh', '-c', 'redis-cli ping | grep PONG'] } }, undefined, 0, { ok: true, latencyMs: 0, output: '' }],
    ['a slow command within the timeout passes late', { exec: { command: ['sleep', '2'] }, timeoutSeconds: 3 }, undefined, 0, { ok: true, latencyMs: 2000, output: '' }],
    ['a command over timeoutSeconds times out', { exec: { command: ['sh', '-c', 'sleep 5'] }, timeoutSeconds: 1 }, undefined, 0, { ok: false, latencyMs: 1000, output: 'command "sh -c sleep 5" timed out' }],
    ['a command that never ends times out', { exec: { command: ['sleep', 'infinity'] }, timeoutSeconds: 2 }, undefined, 0, { ok: false, latencyMs: 2000, output: 'command "sleep infinity" timed out' }],
    ['httpGet passes', { httpGet: { path: '/healthz', port: 8080 } }, undefined, 0, { ok: true, latencyMs: 0, output: '' }],
    ['httpGet fails by annotation', { httpGet: { path: '/healthz', port: 'http' } }, { 'kemu.dev/liveness-probe-fail-after': '0' }, 0, { ok: false, latencyMs: 0, output: 'HTTP probe failed with statuscode: 500' }],
    ['httpGet passes before fail-after', { httpGet: { port: 80 } }, { 'kemu.dev/liveness-probe-fail-after': '30' }, 29_000, { ok: true, latencyMs: 0, output: '' }],
    ['httpGet fails from fail-after on', { httpGet: { port: 80 } }, { 'kemu.dev/liveness-probe-fail-after.web': '30' }, 30_000, { ok: false, latencyMs: 0, output: 'HTTP probe failed with statuscode: 500' }],
    ['fail-after of another container does not apply', { httpGet: { port: 80 } }, { 'kemu.dev/liveness-probe-fail-after.db': '0' }, 0, { ok: true, latencyMs: 0, output: '' }],
    ['fail-after of another probe kind does not apply', { httpGet: { port: 80 } }, { 'kemu.dev/readiness-probe-fail-after': '0' }, 0, { ok: true, latencyMs: 0, output: '' }],
    ['httpGet slower than the timeout', { httpGet: { path: '/healthz', port: 'http' }, timeoutSeconds: 1 }, { 'kemu.dev/liveness-probe-seconds': '2' }, 0,
      { ok: false, latencyMs: 1000, output: 'Get "http://10.244.0.5:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)' }],
    ['tcpSocket fails with connection refused', { tcpSocket: { port: 'http' } }, { 'kemu.dev/liveness-probe-fail-after': '0' }, 0, { ok: false, latencyMs: 0, output: 'dial tcp 10.244.0.5:8080: connect: connection refused' }],
    ['tcpSocket times out', { tcpSocket: { port: 5432 }, timeoutSeconds: 1 }, { 'kemu.dev/liveness-probe-seconds': '3' }, 0, { ok: false, latencyMs: 1000, output: 'dial tcp 10.244.0.5:5432: i/o timeout' }],
    ['grpc NOT_SERVING', { grpc: { port: 9090 } }, { 'kemu.dev/liveness-probe-fail-after': '0' }, 0, { ok: false, latencyMs: 0, output: 'service unhealthy (responded with "NOT_SERVING")' }],
    ['grpc times out', { grpc: { port: 9090 }, timeoutSeconds: 2 }, { 'kemu.dev/liveness-probe-seconds': '5' }, 0, { ok: false, latencyMs: 2000, output: 'timeout: health rpc did not complete within 2s' }],
    ['pass-after: fails before', { httpGet: { port: 80 } }, { 'kemu.dev/liveness-probe-pass-after': '20' }, 10_000, { ok: false, latencyMs: 0, output: 'HTTP probe failed with statuscode: 500' }],
    ['pass-after: passes from then on', { httpGet: { port: 80 } }, { 'kemu.dev/liveness-probe-pass-after': '20' }, 20_000, { ok: true, latencyMs: 0, output: '' }],
    ['an exec probe that passes fails by annotation with its output', { exec: { command: ['echo', 'ok'] } }, { 'kemu.dev/liveness-probe-fail-after': '0' }, 0, { ok: false, latencyMs: 0, output: 'ok\n' }],
  ];
  it.each(cases)('%s', (_name, probe, annotations, since, want) => {
    const plan = probePlan(web(probe), 'liveness', annotations);
    expect(plan?.run(since, '10.244.0.5')).toEqual(want);
  });
});

describe('probePlan: timing', () => {
  it('reads the timing fields with Kubernetes defaults and minimums', () => {
    expect(probePlan(web({ httpGet: { port: 80 } }), 'liveness')).toMatchObject({
      initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3,
    });
    const p = probePlan(web({ tcpSocket: { port: 80 }, initialDelaySeconds: 5, periodSeconds: 2, timeoutSeconds: 0, successThreshold: 2, failureThreshold: 1, terminationGracePeriodSeconds: 4 }), 'liveness');
    expect(p).toMatchObject({ initialDelayMs: 5000, periodMs: 2000, timeoutMs: 1000, successThreshold: 2, failureThreshold: 1, terminationGraceMs: 4000 });
    expect(probePlan(web({ httpGet: { port: 80 } }, 'readiness'), 'readiness')).toBeDefined();
    expect(probePlan(web({ httpGet: { port: 80 } }), 'startup')).toBeUndefined();
  });

  it('changesAfter gives the next pass/fail boundary', () => {
    const p = probePlan(web({ httpGet: { port: 80 } }), 'liveness', { 'kemu.dev/liveness-probe-pass-after': '10', 'kemu.dev/liveness-probe-fail-after': '60' });
    expect(p?.changesAfter(0)).toBe(10_000);
    expect(p?.changesAfter(10_000)).toBe(60_000);
    expect(p?.changesAfter(60_000)).toBe(Infinity);
    expect(probePlan(web({ exec: { command: ['false'] } }), 'liveness')?.changesAfter(0)).toBe(Infinity);
  });
});

describe('probePlan: files the container creates and removes', () => {
  // The Kubernetes docs' exec liveness example (pods/probe/exec-liveness.yaml).
  const c: Container = {
    name: 'liveness',
    image: 'registry.k8s.io/busybox',
    args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'],
    livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 },
  };
  const cases: [string[], number, boolean, string][] = [
    [['cat', '/tmp/healthy'], 29_000, true, ''],
    [['cat', '/tmp/healthy'], 30_000, false, "cat: can't open '/tmp/healthy': No such file or directory\n"],
    [['sh', '-c', 'test -f /tmp/healthy'], 31_000, false, ''],
    [['sh', '-c', '[ -e /tmp/healthy ]'], 1000, true, ''],
    [['ls', '/tmp/healthy'], 40_000, false, 'ls: /tmp/healthy: No such file or directory\n'],
    [['cat', '/tmp/other'], 40_000, true, ''],
  ];
  it.each(cases)('%j at %i ms', (command, since, ok, output) => {
    const plan = probePlan({ ...c, livenessProbe: { ...c.livenessProbe, exec: { command } } }, 'liveness');
    expect(plan?.run(since, undefined)).toEqual({ ok, latencyMs: 0, output });
  });

  it('the answer changes when the file goes', () => {
    const plan = probePlan(c, 'liveness');
    expect(plan?.changesAfter(5000)).toBe(30_000);
    expect(plan?.changesAfter(30_000)).toBe(Infinity);
  });

  it('a file written with a redirect exists from then on', () => {
    const ready: Container = {
      name: 'app',
      command: ['sh', '-c', 'sleep 10; echo ok > /tmp/ready; sleep infinity'],
      readinessProbe: { exec: { command: ['cat', '/tmp/ready'] } },
    };
    const plan = probePlan(ready, 'readiness');
    expect(plan?.run(9000, undefined).ok).toBe(false);
    expect(plan?.run(10_000, undefined).ok).toBe(true);
  });
});

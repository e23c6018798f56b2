import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import type { Pod, PodSpec } from '@kemu/api';
import { PodLifecycle } from './lifecycle.ts';
import { renderStatus } from './status.ts';
import { lifecycleEnv, runLifecycle } from './testing.ts';

const env = lifecycleEnv;
const run = runLifecycle;
const id = { name: 'p', namespace: 'default', uid: 'u1' };

function spec(s: Partial<PodSpec> & { command?: string[] }): PodSpec {
  const { command, ...rest } = s;
  return { containers: [{ name: 'c', image: 'busybox', ...(command ? { command } : {}) }], ...rest };
}

describe('PodLifecycle', () => {
  it('restartPolicy Never + sh -c "sleep 2; exit 3" → Failed with exit code 3', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({ restartPolicy: 'Never', command: ['sh', '-c', 'sleep 2; exit 3'] }), undefined, env(), clock.now());
    expect(lc.advance(clock.now())).toBe(clock.now() + 2000);
    expect(lc.phase()).toBe('Running');
    await run(lc, clock, 2000);
    expect(lc.phase()).toBe('Failed');
    const c = lc.containers[0]!;
    expect(c.state.kind).toBe('terminated');
    if (c.state.kind === 'terminated') {
      expect(c.state.exitCode).toBe(3);
      expect(c.state.reason).toBe('Error');
    }
  });

  it('exit 0 → Succeeded with reason Completed', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({ restartPolicy: 'OnFailure', command: ['sleep', '1'] }), undefined, env(), clock.now());
    await run(lc, clock, 1000);
    expect(lc.phase()).toBe('Succeeded');
    const st = renderStatus({ metadata: { name: 'p' }, spec: spec({}) } as Pod, lc, { now: clock.now(), hostIP: '10.0.0.1' });
    expect(st.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(st.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
  });

  it('crash loop back-off grows 10s, 20s, 40s … capped at 5m', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({ command: ['false'] }), undefined, env(), clock.now());
    lc.advance(clock.now());
    const c = lc.containers[0]!;
    // The first exit restarts at once; then the back-off applies.
    expect(c.restartCount).toBe(1);
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      expect(c.state.kind).toBe('waiting');
      if (c.state.kind !== 'waiting') break;
      expect(c.state.reason).toBe('CrashLoopBackOff');
      const d = (c.state.until ?? 0) - clock.now();
      delays.push(d);
      expect(c.state.message).toBe(`back-off ${d / 1000}s restarting failed container=c pod=p_default(u1)`);
      await clock.advance(d);
      lc.advance(clock.now());
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(c.restartCount).toBe(8);
    expect(c.lastState).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(lc.phase()).toBe('Running');
  });

  it('back-off resets after a container ran 10 minutes', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({ command: ['sleep', '600'] }), undefined, env(), clock.now());
    await run(lc, clock, 600_000 * 3 + 10);
    const c = lc.containers[0]!;
    expect(c.restartCount).toBe(3);
    expect(c.state.kind).toBe('running');
  });

  it('pulls images not on the node, then runs; init containers first; readiness after initialDelaySeconds', async () => {
    const clock = new FakeClock();
    const images = new Set<string>(['busybox']);
    const s: PodSpec = {
      initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'sleep 1'] }],
      containers: [{ name: 'web', image: 'nginx', readinessProbe: { initialDelaySeconds: 5, httpGet: { port: 80 } } }],
    };
    const lc = new PodLifecycle(id, s, undefined, env(3000, images), clock.now());
    lc.advance(clock.now());
    expect(lc.phase()).toBe('Pending');
    expect(lc.initContainers[0]!.state.kind).toBe('running');
    expect(lc.containers[0]!.state).toMatchObject({ kind: 'waiting', reason: 'PodInitializing' });
    await run(lc, clock, 1000);
    expect(lc.initialized()).toBe(true);
    expect(lc.containers[0]!.state).toMatchObject({ kind: 'waiting', reason: 'ContainerCreating' });
    await run(lc, clock, 3000);
    expect(images.has('nginx')).toBe(true);
    expect(lc.phase()).toBe('Running');
    expect(lc.isReady(lc.containers[0]!)).toBe(false);
    await run(lc, clock, 5000);
    expect(lc.isReady(lc.containers[0]!)).toBe(true);
    const st = renderStatus({ metadata: { name: 'p' }, spec: s } as Pod, lc, { now: clock.now(), hostIP: '10.0.0.1', podIP: '10.244.0.2' });
    expect(st.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True',
    ]);
    expect(st.containerStatuses?.[0]).toMatchObject({ ready: true, started: true, restartCount: 0, image: 'docker.io/library/nginx:latest' });
    expect(st.containerStatuses?.[0]?.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(st.initContainerStatuses?.[0]?.state?.terminated?.reason).toBe('Completed');
  });

  it('a failing init container with restartPolicy Never fails the pod', () => {
    const clock = new FakeClock();
    const s: PodSpec = { restartPolicy: 'Never', initContainers: [{ name: 'i', image: 'x', command: ['false'] }], containers: [{ name: 'c', image: 'x' }] };
    const lc = new PodLifecycle(id, s, undefined, env(), clock.now());
    lc.advance(clock.now());
    expect(lc.phase()).toBe('Failed');
  });

  it('graceful stop waits for preStop and termination time, bounded by the grace period', async () => {
    const clock = new FakeClock();
    const s: PodSpec = { containers: [{ name: 'c', image: 'x', lifecycle: { preStop: { sleep: { seconds: 3 } } } }] };
    const lc = new PodLifecycle(id, s, { 'kemu.dev/termination-seconds': '2' }, env(), clock.now());
    lc.advance(clock.now());
    lc.requestStop(clock.now(), 30_000);
    expect(lc.advance(clock.now())).toBe(clock.now() + 5000);
    await run(lc, clock, 5000);
    expect(lc.finished()).toBe(true);
    expect(lc.phase()).toBe('Succeeded');

    const lc2 = new PodLifecycle(id, s, { 'kemu.dev/termination-seconds': '60' }, env(), clock.now());
    lc2.advance(clock.now());
    lc2.requestStop(clock.now(), 10_000);
    await run(lc2, clock, 10_000);
    expect(lc2.phase()).toBe('Failed');
    expect(lc2.containers[0]!.state).toMatchObject({ kind: 'terminated', exitCode: 137 });
  });

  it('a container that traps nothing stops at once', () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({}), undefined, env(), clock.now());
    lc.advance(clock.now());
    lc.requestStop(clock.now(), 30_000);
    expect(lc.advance(clock.now())).toBeUndefined();
    expect(lc.finished()).toBe(true);
  });

  it('activeDeadlineSeconds fails the pod with DeadlineExceeded', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, spec({ activeDeadlineSeconds: 5 }), undefined, env(), clock.now());
    await run(lc, clock, 5000);
    expect(lc.phase()).toBe('Failed');
    expect(lc.reason).toBe('DeadlineExceeded');
  });
});

describe('PodLifecycle: probes', () => {
  it('a failing readiness probe keeps the container unready: Ready and ContainersReady False with ContainersNotReady', async () => {
    const clock = new FakeClock();
    const s: PodSpec = { containers: [{ name: 'web', image: 'nginx', readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } }] };
    const lc = new PodLifecycle(id, s, undefined, env(), clock.now());
    await run(lc, clock, 5000);
    expect(lc.phase()).toBe('Running');
    const st = renderStatus({ metadata: { name: 'p' }, spec: s } as Pod, lc, { now: clock.now(), hostIP: '10.0.0.1', podIP: '10.244.0.2' });
    expect(st.containerStatuses?.[0]).toMatchObject({ ready: false, started: true, restartCount: 0 });
    for (const type of ['Ready', 'ContainersReady']) {
      expect(st.conditions?.find((c) => c.type === type)).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]' });
    }
  });

  it('a failing liveness probe kills (137, Error) and restarts the container, with CrashLoopBackOff from the second time', async () => {
    const clock = new FakeClock();
    const s: PodSpec = { containers: [{ name: 'web', image: 'nginx', livenessProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 2 } }] };
    const t0 = clock.now();
    const lc = new PodLifecycle(id, s, { 'kemu.dev/liveness-probe-fail-after': '3' }, env(), t0);
    const c = lc.containers[0]!;
    // Fails at 3 s and 4 s → killed at 4 s, restarted at once.
    await run(lc, clock, 4000);
    expect(c.restartCount).toBe(1);
    expect(c.state.kind).toBe('running');
    expect(c.lastState).toMatchObject({ exitCode: 137, reason: 'Error', finishedAt: t0 + 4000 });
    // The new container fails again 4 s after its start → back-off 10 s.
    await run(lc, clock, 4000);
    expect(c.state).toMatchObject({ kind: 'waiting', reason: 'CrashLoopBackOff' });
    const st = renderStatus({ metadata: { name: 'p' }, spec: s } as Pod, lc, { now: clock.now(), hostIP: '10.0.0.1' });
    expect(st.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 137, reason: 'Error' });
    expect(st.containerStatuses?.[0]?.restartCount).toBe(1);
    await run(lc, clock, 10_000);
    expect(c.restartCount).toBe(2);
  });

  it('the kill takes the preStop hook and the stop time, bounded by the probe\'s terminationGracePeriodSeconds; restartPolicy Never fails the pod', async () => {
    const clock = new FakeClock();
    const s: PodSpec = {
      restartPolicy: 'Never',
      containers: [{ name: 'web', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 20 } } }, livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 1, failureThreshold: 1, terminationGracePeriodSeconds: 5 } }],
    };
    const t0 = clock.now();
    const lc = new PodLifecycle(id, s, { 'kemu.dev/liveness-probe-fail-after': '1' }, env(), t0);
    await run(lc, clock, 1000);
    expect(lc.containers[0]!.state.kind).toBe('running');
    await run(lc, clock, 5000);
    expect(lc.containers[0]!.state).toMatchObject({ kind: 'terminated', exitCode: 137, finishedAt: t0 + 6000 });
    expect(lc.phase()).toBe('Failed');
  });

  it('a startup probe gates started and ready', async () => {
    const clock = new FakeClock();
    const s: PodSpec = { containers: [{ name: 'web', image: 'nginx', startupProbe: { httpGet: { port: 80 }, periodSeconds: 2, failureThreshold: 30 }, readinessProbe: { httpGet: { port: 80 } } }] };
    const lc = new PodLifecycle(id, s, { 'kemu.dev/startup-probe-pass-after': '5' }, env(), clock.now());
    await run(lc, clock, 5000);
    expect(lc.isStarted(lc.containers[0]!)).toBe(false);
    expect(lc.isReady(lc.containers[0]!)).toBe(false);
    await run(lc, clock, 1000);
    expect(lc.isStarted(lc.containers[0]!)).toBe(true);
    expect(lc.isReady(lc.containers[0]!)).toBe(true);
  });
});

describe('PodLifecycle: imagePullPolicy', () => {
  it('Always pulls even when the image is on the node, and again on a restart; IfNotPresent does not', async () => {
    const clock = new FakeClock();
    const images = new Set(['busybox']);
    const always = new PodLifecycle(id, { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'Always', command: ['false'] }] }, undefined, env(2000, images), clock.now());
    always.advance(clock.now());
    expect(always.containers[0]!.state).toMatchObject({ kind: 'waiting', reason: 'ContainerCreating', until: clock.now() + 2000 });
    await run(always, clock, 2000);
    // It exited at once and restarts at once, pulling again.
    expect(always.containers[0]!.state).toMatchObject({ kind: 'waiting', until: clock.now() + 2000 });
    const present = new PodLifecycle(id, { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent' }] }, undefined, env(2000, images), clock.now());
    present.advance(clock.now());
    expect(present.containers[0]!.state.kind).toBe('running');
  });

  it('Never with the image absent: waiting ErrImageNeverPull until the image is on the node', async () => {
    const clock = new FakeClock();
    const images = new Set<string>();
    const lc = new PodLifecycle(id, { containers: [{ name: 'c', image: 'app:v1', imagePullPolicy: 'Never' }] }, undefined, env(0, images), clock.now());
    expect(lc.advance(clock.now())).toBe(clock.now() + 10_000);
    expect(lc.containers[0]!.state).toMatchObject({ kind: 'waiting', reason: 'ErrImageNeverPull', message: 'Container image "app:v1" is not present with pull policy of Never' });
    expect(lc.phase()).toBe('Pending');
    images.add('app:v1');
    await run(lc, clock, 10_000);
    expect(lc.containers[0]!.state.kind).toBe('running');
  });
});

describe('PodLifecycle: probes while the pod stops', () => {
  it('readiness is still probed while a container takes its time to stop; liveness no longer kills', async () => {
    const clock = new FakeClock();
    const s: PodSpec = {
      containers: [{
        name: 'web', image: 'nginx',
        readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 1 },
        livenessProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 1 },
      }],
    };
    const ann = { 'kemu.dev/termination-seconds': '10', 'kemu.dev/readiness-probe-fail-after': '3', 'kemu.dev/liveness-probe-fail-after': '3' };
    const lc = new PodLifecycle(id, s, ann, env(), clock.now());
    await run(lc, clock, 1000);
    expect(lc.isReady(lc.containers[0]!)).toBe(true);
    lc.requestStop(clock.now(), 30_000);
    await run(lc, clock, 4000);
    const c = lc.containers[0]!;
    expect(c.state.kind).toBe('running');
    expect(c.restartCount).toBe(0);
    expect(lc.isReady(c)).toBe(false);
    await run(lc, clock, 6000);
    expect(lc.phase()).toBe('Succeeded');
  });
});

// Ephemeral (debug) containers in a pod's lifecycle and status, as the kubelet runs them: added to a running
// pod, started at the next sync, never restarted, reported under status.ephemeralContainerStatuses without
// `started`, never ready, and not part of the pod's phase or readiness.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import type { Pod, PodSpec } from '@kemu/api';
import { PodLifecycle } from './lifecycle.ts';
import { renderStatus } from './status.ts';
import { lifecycleEnv, runLifecycle } from './testing.ts';

const id = { name: 'p', namespace: 'default', uid: 'u1' };
const spec: PodSpec = { restartPolicy: 'Always', containers: [{ name: 'app', image: 'nginx' }] };
const pod = (s: PodSpec) => ({ metadata: { name: 'p' }, spec: s }) as Pod;

describe('ephemeral containers', () => {
  it('start when added, run their command once, and are reported as the kubelet reports them', async () => {
    const clock = new FakeClock();
    const events: string[] = [];
    const lc = new PodLifecycle(id, spec, undefined, lifecycleEnv(), clock.now(), (c, _t, reason) => events.push(`${reason} ${c?.ephemeral ? 'eph' : ''}${c?.name ?? ''}`));
    await runLifecycle(lc, clock, 1000);
    expect(lc.addEphemeral({ name: 'debugger', image: 'busybox', command: ['sh', '-c', 'sleep 2; exit 3'], targetContainerName: 'app' })).toBe(true);
    expect(lc.addEphemeral({ name: 'debugger', image: 'busybox' })).toBe(false);
    await runLifecycle(lc, clock, 0);
    let st = renderStatus(pod(spec), lc, { now: clock.now(), hostIP: '10.0.0.1' });
    expect(st.ephemeralContainerStatuses).toEqual([
      { name: 'debugger', state: { running: { startedAt: expect.any(String) } }, lastState: {}, ready: false, restartCount: 0, image: 'docker.io/library/busybox:latest', imageID: expect.stringMatching(/^docker\.io\/library\/busybox@sha256:/), containerID: expect.stringMatching(/^kemu:\/\//) },
    ]);
    expect(events).toContain('Started ephdebugger');
    await runLifecycle(lc, clock, 3000);
    st = renderStatus(pod(spec), lc, { now: clock.now(), hostIP: '10.0.0.1' });
    expect(st.ephemeralContainerStatuses?.[0]).toMatchObject({ state: { terminated: { exitCode: 3, reason: 'Error' } }, restartCount: 0 });
    // The pod runs on, ready: a debug container is not one of its containers.
    expect([lc.phase(), st.conditions?.find((c) => c.type === 'Ready')?.status]).toEqual(['Running', 'True']);
    await runLifecycle(lc, clock, 60_000);
    expect(lc.ephemeralContainers[0]?.state.kind).toBe('terminated');
  });

  it('a pod that ends stops its debug containers; a kubelet restart adopts them as reported', async () => {
    const clock = new FakeClock();
    const s: PodSpec = { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox', command: ['sleep', '5'] }] };
    const lc = new PodLifecycle(id, s, undefined, lifecycleEnv(), clock.now());
    lc.addEphemeral({ name: 'd', image: 'busybox', command: ['sleep', '3600'] });
    await runLifecycle(lc, clock, 1000);
    const before = renderStatus(pod(s), lc, { now: clock.now(), hostIP: '10.0.0.1' });
    const again = new PodLifecycle(id, { ...s, ephemeralContainers: [{ name: 'd', image: 'busybox', command: ['sleep', '3600'] }] }, undefined, lifecycleEnv(), clock.now());
    again.adopt(before, clock.now());
    expect(again.ephemeralContainers[0]?.state).toMatchObject({ kind: 'running', containerID: before.ephemeralContainerStatuses?.[0]?.containerID });
    await runLifecycle(lc, clock, 5000);
    expect(lc.phase()).toBe('Succeeded');
    expect(lc.ephemeralContainers[0]?.state).toMatchObject({ kind: 'terminated', exitCode: 137 });
  });
});

// Containers' programs through the lifecycle, on a fake clock: output lands in the container's log as time passes,
// the script decides exit time and code, a crash restarts with the previous instance's log kept.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import type { PodSpec } from '@kemu/api';
import { PodLifecycle, type ContainerRuntime } from './lifecycle.ts';
import { lifecycleEnv, runLifecycle } from './testing.ts';
import { banner, containerEnv, expandRefs } from './program.ts';

const env = () => lifecycleEnv(0, new Set(['busybox', 'nginx:1.27']));
const run = runLifecycle;
const id = { name: 'p', namespace: 'default', uid: 'u1' };

const text = (c: ContainerRuntime | undefined, id: string, now: number) => {
  const log = c?.logs.get(id);
  log?.pump(now);
  return log?.kept().map((r) => `${r.ts}|${r.text}`) ?? [];
};

const pod = (command: string[], extra: Partial<PodSpec> = {}): PodSpec => ({ containers: [{ name: 'c', image: 'busybox', command }], ...extra });

describe('container programs', () => {
  it('the busybox loop prints three lines one second apart and the pod completes', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const lc = new PodLifecycle(id, pod(['sh', '-c', 'for i in 1 2 3; do echo hello $i; sleep 1; done'], { restartPolicy: 'Never' }), undefined, env(), t0);
    await run(lc, clock, 1500);
    const c = lc.containers[0];
    expect(c?.state.kind).toBe('running');
    expect(text(c, 'kemu://00000001', clock.now())).toEqual([`${t0}|hello 1\n`, `${t0 + 1000}|hello 2\n`]);
    await run(lc, clock, 2000);
    expect(c?.state).toMatchObject({ kind: 'terminated', exitCode: 0, reason: 'Completed', finishedAt: t0 + 3000 });
    expect(lc.phase()).toBe('Succeeded');
    expect(text(c, 'kemu://00000001', clock.now())).toHaveLength(3);
    expect(c?.logs.get('kemu://00000001')?.finished).toBe(true);
  });

  it("sh -c 'echo boom; exit 1' exits 1, goes to CrashLoopBackOff and keeps the previous instance's log", async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const lc = new PodLifecycle(id, pod(['sh', '-c', 'echo boom; exit 1']), undefined, env(), t0);
    await run(lc, clock, 1);
    const c = lc.containers[0];
    expect(c?.state).toMatchObject({ kind: 'waiting', reason: 'CrashLoopBackOff' });
    // The first restart is immediate, the second waits 10 s.
    expect(c?.lastState).toMatchObject({ exitCode: 1, reason: 'Error', containerID: 'kemu://00000002' });
    expect(text(c, 'kemu://00000002', clock.now())).toEqual([`${t0}|boom\n`]);
    await run(lc, clock, 10_000);
    expect(c?.restartCount).toBe(2);
    expect(c?.lastState).toMatchObject({ containerID: 'kemu://00000003', finishedAt: t0 + 10_000 });
    expect(text(c, 'kemu://00000003', clock.now())).toEqual([`${t0 + 10_000}|boom\n`]);
    // Only the current and the previous instance are kept.
    expect(c?.logs.get('kemu://00000001')).toBeUndefined();
  });

  it('annotations override the exit the script would make; output stops at the kill', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const spec = pod(['sh', '-c', 'while true; do echo tick; sleep 1; done'], { restartPolicy: 'Never' });
    const lc = new PodLifecycle(id, spec, { 'kemu.dev/run-seconds': '2.5', 'kemu.dev/exit-code': '4' }, env(), t0);
    await run(lc, clock, 10_000);
    expect(lc.containers[0]?.state).toMatchObject({ kind: 'terminated', exitCode: 4, finishedAt: t0 + 2500 });
    expect(text(lc.containers[0], 'kemu://00000001', clock.now())).toHaveLength(3);
  });

  it('an endless loop runs until the pod is deleted, looked ahead a minute at a time', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, pod(['sh', '-c', 'while true; do date; sleep 10; done']), undefined, env(), clock.now());
    await run(lc, clock, 3_600_000);
    expect(lc.containers[0]?.state.kind).toBe('running');
    lc.requestStop(clock.now(), 30_000);
    await run(lc, clock, 1);
    const lines = text(lc.containers[0], 'kemu://00000001', clock.now());
    expect(lines).toHaveLength(361);
    expect(lines[0]).toBe(`${1_700_000_000_000}|Tue Nov 14 22:13:20 UTC 2023\n`);
  });

  it('images without a command print a start-up line and run on', async () => {
    const clock = new FakeClock();
    const lc = new PodLifecycle(id, { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 8080 }] }] }, undefined, env(), clock.now());
    await run(lc, clock, 5000);
    expect(lc.containers[0]?.state.kind).toBe('running');
    expect(text(lc.containers[0], 'kemu://00000001', clock.now())).toEqual([`${clock.now() - 5000}|kemu: emulated nginx started, serving HTTP on port 8080\n`]);
    expect(banner({ name: 'b', image: 'busybox' })).toBeUndefined();
    expect(banner({ name: 'r', image: 'docker.io/library/redis:7' })).toContain('6379');
  });

  it('env values and $(VAR) references as the kubelet expands them', () => {
    const e = containerEnv([{ name: 'A', value: 'x' }, { name: 'B', value: '$(A)-$$(A)-$(NOPE)' }, { name: 'C', valueFrom: {} }], 'p');
    expect(e).toMatchObject({ A: 'x', B: 'x-$(A)-$(NOPE)', HOSTNAME: 'p', HOME: '/root' });
    expect(e).not.toHaveProperty('C');
    expect(expandRefs('echo $(A)', e)).toBe('echo x');
    // The kubernetes docs' `printenv HOSTNAME KUBERNETES_PORT`.
    expect(e.KUBERNETES_PORT).toBe('tcp://10.96.0.1:443');
  });
});

describe('Job containers', () => {
  it("kubernetes.io's pi Job prints π to 2000 digits and succeeds", async () => {
    const clock = new FakeClock();
    const spec = { containers: [{ name: 'pi', image: 'busybox', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }], restartPolicy: 'Never' as const };
    const lc = new PodLifecycle(id, spec, undefined, env(), clock.now());
    await run(lc, clock, 1000);
    expect(lc.terminalPhase).toBe('Succeeded');
    const [line] = text(lc.containers[0], 'kemu://00000001', clock.now());
    const digits = (line ?? '').split('|')[1] ?? '';
    expect(digits.startsWith('3.14159265358979323846264338327950288419716939937510')).toBe(true);
    expect(digits).toHaveLength(2002);
    expect(digits.endsWith('59958133904780275901\n')).toBe(true);
  });

  it('JOB_COMPLETION_INDEX comes from the pod annotation (a fieldRef)', () => {
    const envVars = containerEnv(
      [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      'idx-2',
      { name: 'idx-2-abcde', annotations: { 'batch.kubernetes.io/job-completion-index': '2' } },
    );
    expect(envVars.JOB_COMPLETION_INDEX).toBe('2');
    expect(envVars.POD).toBe('idx-2-abcde');
  });
});

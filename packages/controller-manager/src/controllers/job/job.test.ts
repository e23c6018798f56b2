import { afterEach, describe, expect, it } from 'vitest';
import { JOB_TRACKING_FINALIZER, R, formatTime, type Job, type Pod } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { JobController } from './index.ts';
import { formatIndexes, parseIndexes } from './indexes.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

function jobObj(name: string, spec: Partial<Job['spec']> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      selector: { matchLabels: { job: name } },
      template: { metadata: { labels: { job: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } },
      ...spec,
    },
  };
}

async function start(seed: (env: FakeEnv) => Promise<void> = async () => undefined) {
  const env = fakeContext();
  envs.push(env);
  await seed(env);
  const c = new JobController(env.ctx, { backoffMs: 1000, batchPeriodMs: 0 });
  env.informers.start(env.abort.signal);
  const done = c.run();
  await settle();
  return { ...env, c, done };
}

const live = (env: FakeEnv) => env.api.all<Pod>(R.pods, 'default').filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));

async function finishPod(env: FakeEnv, p: Pod, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1): Promise<void> {
  const cur = await env.api.get<Pod>(R.pods, 'default', p.metadata.name ?? '');
  const t = formatTime(env.clock.now());
  await env.api.updateStatus(R.pods, 'default', {
    ...cur,
    status: { phase, containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { terminated: { exitCode, finishedAt: t } } }] },
  });
}

const getJob = (env: FakeEnv, name: string) => env.api.get<Job>(R.jobs, 'default', name);

describe('completion indexes', () => {
  it('parse and print as intervals', () => {
    expect(formatIndexes(parseIndexes('0,2-4,7', 10))).toBe('0,2-4,7');
    expect(formatIndexes(new Set([5, 1, 2, 3]))).toBe('1-3,5');
    expect([...parseIndexes('3-6', 5)]).toEqual([3, 4]);
  });
});

describe('job-controller', () => {
  it('runs parallelism pods with the tracking finalizer, counts successes once and completes', async () => {
    const env = await start();
    await env.api.create(R.jobs, 'default', jobObj('work', { completions: 3, parallelism: 2 }));
    await settle();
    let pods = live(env);
    expect(pods).toHaveLength(2);
    expect(pods[0]?.metadata.finalizers).toEqual([JOB_TRACKING_FINALIZER]);
    expect(pods[0]?.metadata.name).toMatch(/^work-[a-z0-9]{5}$/);
    for (const p of pods) await finishPod(env, p, 'Succeeded');
    await settle();
    let job = await getJob(env, 'work');
    expect(job.status).toMatchObject({ succeeded: 2, active: 1, uncountedTerminatedPods: { succeeded: [], failed: [] } });
    pods = live(env);
    expect(pods).toHaveLength(1);
    await finishPod(env, pods[0]!, 'Succeeded');
    await settle();
    job = await getJob(env, 'work');
    expect(job.status?.succeeded).toBe(3);
    expect(job.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    expect(job.status?.completionTime).toBeDefined();
    expect(env.api.all<Pod>(R.pods, 'default').every((p) => !(p.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER))).toBe(true);
    expect(env.recorder.events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
    expect(env.recorder.events).toContainEqual({ object: 'Job/work', type: 'Normal', reason: 'Completed', message: 'Job completed' });
  });

  it('fails with BackoffLimitExceeded after backoffLimit+1 failures, backing off between them', async () => {
    const env = await start();
    await env.api.create(R.jobs, 'default', jobObj('flaky', { backoffLimit: 1 }));
    await settle();
    await finishPod(env, live(env)[0]!, 'Failed');
    await settle();
    expect(live(env)).toHaveLength(0); // back-off: no replacement yet
    await env.clock.advance(1100);
    await settle();
    expect(live(env)).toHaveLength(1);
    await finishPod(env, live(env)[0]!, 'Failed');
    await settle();
    const job = await getJob(env, 'flaky');
    expect(job.status?.failed).toBe(2);
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(job.status?.conditions?.find((c) => c.type === 'FailureTarget')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(env.recorder.events).toContainEqual({ object: 'Job/flaky', type: 'Warning', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
  });

  it('Indexed: creations observed while a sync awaits do not vouch for the pod list it read before (no duplicate index)', async () => {
    const env = await start();
    const pods = env.informers.get<Pod>(R.pods);
    pods.hold();
    await env.api.create(R.jobs, 'default', jobObj('race', { completionMode: 'Indexed', completions: 3, parallelism: 3 }));
    await settle();
    expect(env.api.all<Pod>(R.pods, 'default')).toHaveLength(3);
    // The next sync reads the (still empty) pod cache, then writes status; the creations arrive during that write.
    let armed = true;
    env.api.failWith = (call) => {
      const active = (call.body as Job | undefined)?.status?.active;
      if (armed && call.verb === 'update/status' && call.resource === 'jobs' && active !== 7) {
        armed = false;
        pods.release();
      }
      return undefined;
    };
    const cur = await getJob(env, 'race');
    await env.api.updateStatus(R.jobs, 'default', { ...cur, status: { ...cur.status, active: 7 } });
    await settle();
    expect(armed).toBe(false);
    // Exactly the three first creations: none made (and then deleted as surplus) from the stale list.
    expect(env.api.calls.filter((c) => c.verb === 'create' && c.resource === 'pods')).toHaveLength(3);
    expect(env.api.calls.filter((c) => c.verb === 'delete' && c.resource === 'pods')).toHaveLength(0);
  });

  it('Indexed: one pod per index with the index annotation, label, env and hostname; completedIndexes', async () => {
    const env = await start();
    await env.api.create(R.jobs, 'default', jobObj('idx', { completionMode: 'Indexed', completions: 3, parallelism: 3 }));
    await settle();
    const pods = live(env).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    expect(pods.map((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'])).toEqual(['0', '1', '2']);
    expect(pods[1]?.metadata.labels?.['batch.kubernetes.io/job-completion-index']).toBe('1');
    expect(pods[1]?.metadata.name).toMatch(/^idx-1-[a-z0-9]{5}$/);
    expect(pods[1]?.spec.hostname).toBe('idx-1');
    expect(pods[1]?.spec.containers[0]?.env).toEqual([
      { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
    ]);
    await finishPod(env, pods[2]!, 'Succeeded');
    await finishPod(env, pods[0]!, 'Succeeded');
    await settle();
    expect((await getJob(env, 'idx')).status).toMatchObject({ completedIndexes: '0,2', succeeded: 2, active: 1 });
    await finishPod(env, pods[1]!, 'Succeeded');
    await settle();
    const job = await getJob(env, 'idx');
    expect(job.status).toMatchObject({ completedIndexes: '0-2', succeeded: 3 });
    expect(job.status?.conditions?.find((c) => c.type === 'Complete')?.status).toBe('True');
  });

  it('a new controller resumes an uncounted success without counting it twice (failover)', async () => {
    const env = await start(async (e) => {
      const job = await e.api.create(R.jobs, 'default', jobObj('resume', { completions: 2, parallelism: 1 }));
      // The previous leader recorded the pod as uncounted and died before removing its finalizer.
      const pod = await e.api.create<Pod>(R.pods, 'default', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'resume-aaaaa',
          namespace: 'default',
          labels: { job: 'resume' },
          finalizers: [JOB_TRACKING_FINALIZER],
          ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'resume', uid: job.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
        status: { phase: 'Succeeded' },
      });
      await e.api.updateStatus(R.jobs, 'default', { ...job, status: { startTime: formatTime(e.clock.now()), uncountedTerminatedPods: { succeeded: [pod.metadata.uid ?? ''], failed: [] } } });
    });
    await settle();
    const job = await getJob(env, 'resume');
    expect(job.status).toMatchObject({ succeeded: 1, active: 1, uncountedTerminatedPods: { succeeded: [], failed: [] } });
    await finishPod(env, live(env)[0]!, 'Succeeded');
    await settle();
    expect((await getJob(env, 'resume')).status?.succeeded).toBe(2);
  });

  it('fails a Job active longer than activeDeadlineSeconds and deletes its pods', async () => {
    const env = await start();
    await env.api.create(R.jobs, 'default', jobObj('slow', { activeDeadlineSeconds: 5 }));
    await settle();
    expect(live(env)).toHaveLength(1);
    await env.clock.advance(5100);
    await settle();
    // The deleted pod is terminating (it keeps the kubelet's grace): counted failed, then released.
    const job = await getJob(env, 'slow');
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    expect(live(env)).toHaveLength(0);
  });

  it('podFailurePolicy FailJob fails the Job at once with the rule in the message', async () => {
    const env = await start();
    await env.api.create(
      R.jobs,
      'default',
      jobObj('pfp', { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } }] } }),
    );
    await settle();
    const pod = live(env)[0]!;
    await finishPod(env, pod, 'Failed', 42);
    await settle();
    const job = await getJob(env, 'pfp');
    expect(job.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({
      reason: 'PodFailurePolicy',
      message: `Container c for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`,
    });
  });

  it('suspend deletes active pods and sets Suspended; resume starts again', async () => {
    const env = await start();
    await env.api.create(R.jobs, 'default', jobObj('sus', { suspend: true }));
    await settle();
    expect(live(env)).toHaveLength(0);
    let job = await getJob(env, 'sus');
    expect(job.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject({ status: 'True', reason: 'JobSuspended', message: 'Job suspended' });
    await env.api.patch(R.jobs, 'default', 'sus', { spec: { suspend: false } }, 'merge');
    await settle();
    job = await getJob(env, 'sus');
    expect(job.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject({ status: 'False', reason: 'JobResumed', message: 'Job resumed' });
    expect(live(env)).toHaveLength(1);
  });
});

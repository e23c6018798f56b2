import { afterEach, describe, expect, it } from 'vitest';
import { R, formatTime, type CronJob, type Job } from '@kemu/api';
import { fakeContext, settle, type FakeEnv } from '../testing/context.ts';
import { CronJobController, jobNameFor } from './cronjob.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

// 2023-11-14T22:13:20Z: the fake clock's start; schedules below are read from there.
function cronJob(name: string, spec: Partial<CronJob['spec']> = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
      ...spec,
    },
  };
}

async function start() {
  const env = fakeContext();
  envs.push(env);
  const c = new CronJobController(env.ctx);
  env.informers.start(env.abort.signal);
  const done = c.run();
  await settle();
  return { ...env, c, done };
}

const jobs = (env: FakeEnv) => env.api.all<Job>(R.jobs, 'default').filter((j) => !j.metadata.deletionTimestamp);

async function complete(env: FakeEnv, j: Job, type: 'Complete' | 'Failed' = 'Complete'): Promise<void> {
  const cur = await env.api.get<Job>(R.jobs, 'default', j.metadata.name ?? '');
  const t = formatTime(env.clock.now());
  await env.api.updateStatus(R.jobs, 'default', {
    ...cur,
    status: { startTime: t, ...(type === 'Complete' ? { completionTime: t } : {}), conditions: [{ type, status: 'True', lastTransitionTime: t }] },
  });
}

describe('cronjob-controller', () => {
  it('creates <name>-<minutes since epoch> at each scheduled minute, owned, annotated, with status', async () => {
    const env = await start();
    const cj = await env.api.create(R.cronjobs, 'default', cronJob('hello'));
    await settle();
    expect(jobs(env)).toHaveLength(0);
    await env.clock.advance(60_000);
    await settle();
    const [job] = jobs(env);
    const minute = Math.floor(env.clock.now() / 60_000);
    expect(job?.metadata.name).toBe(`hello-${minute}`);
    expect(job?.metadata.labels).toEqual({ app: 'hello' });
    expect(job?.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hello', uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(job?.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(formatTime(minute * 60_000));
    const got = await env.api.get<CronJob>(R.cronjobs, 'default', 'hello');
    expect(got.status?.lastScheduleTime).toBe(formatTime(minute * 60_000));
    expect(got.status?.active?.map((r) => r.name)).toEqual([`hello-${minute}`]);
    expect(env.recorder.events).toContainEqual({ object: 'CronJob/hello', type: 'Normal', reason: 'SuccessfulCreate', message: `Created job hello-${minute}` });
    await complete(env, job!);
    await settle();
    const after = await env.api.get<CronJob>(R.cronjobs, 'default', 'hello');
    expect(after.status?.active).toBeUndefined();
    expect(after.status?.lastSuccessfulTime).toBeDefined();
    expect(env.recorder.events.some((e) => e.reason === 'SawCompletedJob' && e.message === `Saw completed job: hello-${minute}, condition: Complete`)).toBe(true);
  });

  it('keeps successfulJobsHistoryLimit finished Jobs', async () => {
    const env = await start();
    await env.api.create(R.cronjobs, 'default', cronJob('hist', { successfulJobsHistoryLimit: 2 }));
    for (let i = 0; i < 4; i++) {
      await env.clock.advance(60_000);
      await settle();
      for (const j of jobs(env)) if (!j.status?.conditions) await complete(env, j);
      await settle();
    }
    expect(jobs(env)).toHaveLength(2);
    expect(env.recorder.events.filter((e) => e.reason === 'SuccessfulDelete')).toHaveLength(2);
  });

  it('Forbid skips a run while one is active; Replace deletes it', async () => {
    const env = await start();
    await env.api.create(R.cronjobs, 'default', cronJob('forbid', { concurrencyPolicy: 'Forbid' }));
    await env.api.create(R.cronjobs, 'default', cronJob('replace', { concurrencyPolicy: 'Replace' }));
    await settle();
    await env.clock.advance(60_000);
    await settle();
    expect(jobs(env)).toHaveLength(2);
    await env.clock.advance(60_000);
    await settle();
    const names = jobs(env).map((j) => j.metadata.name ?? '');
    expect(names.filter((n) => n.startsWith('forbid-'))).toHaveLength(1);
    expect(names.filter((n) => n.startsWith('replace-'))).toEqual([jobNameFor('replace', new Date(Math.floor(env.clock.now() / 60_000) * 60_000))]);
    expect(env.recorder.events).toContainEqual({
      object: 'CronJob/forbid',
      type: 'Normal',
      reason: 'JobAlreadyActive',
      message: 'Not starting job because prior execution is running and concurrency policy is Forbid',
    });
  });

  it('suspend stops runs; a missed start past startingDeadlineSeconds is reported, not run', async () => {
    const env = await start();
    await env.api.create(R.cronjobs, 'default', cronJob('sus', { suspend: true }));
    await env.clock.advance(120_000);
    await settle();
    expect(jobs(env)).toHaveLength(0);
    // Resume 30 s after a scheduled minute with a 10 s deadline: too late for that one.
    await env.clock.advance(30_000);
    await env.api.patch(R.cronjobs, 'default', 'sus', { spec: { suspend: false, startingDeadlineSeconds: 10 } }, 'merge');
    await settle();
    expect(jobs(env)).toHaveLength(0);
    await env.clock.advance(30_000);
    await settle();
    expect(jobs(env)).toHaveLength(1);
  });

  it('warns about more than 100 missed start times and runs the most recent', async () => {
    const env = await start();
    const cj = cronJob('late');
    cj.metadata.creationTimestamp = formatTime(env.clock.now());
    await env.api.create(R.cronjobs, 'default', { ...cj, spec: { ...cj.spec, suspend: true } });
    await env.clock.advance(3 * 3_600_000);
    await env.api.patch(R.cronjobs, 'default', 'late', { spec: { suspend: false } }, 'merge');
    await settle();
    expect(jobs(env)).toHaveLength(1);
    const warn = env.recorder.events.find((e) => e.reason === 'TooManyMissedTimes');
    expect(warn?.message).toBe('too many missed start times: 180. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
  });

  it('honours timeZone and the @hourly macro', async () => {
    const env = await start();
    await env.api.create(R.cronjobs, 'default', cronJob('tz', { schedule: '@hourly', timeZone: 'Asia/Kolkata' }));
    await env.clock.advance(3_600_000);
    await settle();
    const [job] = jobs(env);
    // Kolkata is UTC+05:30: its whole hours fall on UTC half hours.
    const ts = job?.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '';
    expect(ts).toMatch(/T\d\d:00:00\+05:30$/);
    expect(new Date(ts).getUTCMinutes()).toBe(30);
  });
});

// batch/v1 Jobs and CronJobs through the REST handlers: Kubernetes' defaults, the generated selector and
// labels, validation messages, the immutable template, and the Table columns kubectl prints.
import { describe, expect, it } from 'vitest';
import { memoryServerFixture } from '../testing/memory-server-fixture.ts';

const { call } = memoryServerFixture();

const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs';

const pi = (name = 'pi') => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: {
    template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }], restartPolicy: 'Never' } },
    backoffLimit: 4,
  },
});

const hello = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'hello' },
  spec: {
    schedule: '* * * * *',
    jobTemplate: {
      spec: {
        template: {
          spec: {
            containers: [{ name: 'hello', image: 'busybox:1.28', command: ['/bin/sh', '-c', 'date; echo Hello from the Kubernetes cluster'] }],
            restartPolicy: 'OnFailure',
          },
        },
      },
    },
  },
};

describe('jobs', () => {
  it('defaults a Job as Kubernetes does and generates its selector and labels', async () => {
    const r = await call('POST', JOBS, pi());
    expect(r.status).toBe(201);
    const uid = r.body.metadata.uid;
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.spec).toMatchObject({
      parallelism: 1,
      completions: 1,
      backoffLimit: 4,
      completionMode: 'NonIndexed',
      suspend: false,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    expect(r.body.spec.template.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': uid,
      'job-name': 'pi',
    });
    expect(r.body.status).toEqual({});
  });

  it('refuses restartPolicy Always and a changed template with Kubernetes messages', async () => {
    const bad = pi('always');
    bad.spec.template.spec.restartPolicy = 'Always';
    const r = await call('POST', JOBS, bad);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
    const got = await call('GET', `${JOBS}/pi`);
    got.body.spec.template.spec.containers[0].image = 'perl:5.36';
    const u = await call('PUT', `${JOBS}/pi`, got.body);
    expect(u.status).toBe(422);
    expect(u.body.message).toMatch(/spec\.template: Invalid value: .*: field is immutable/);
  });

  it('requires completions for Indexed mode', async () => {
    const j = pi('indexed') as any;
    j.spec.completionMode = 'Indexed';
    j.spec.parallelism = 2;
    const r = await call('POST', JOBS, j);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.completions: Required value: when completion mode is Indexed');
  });

  it('selects Jobs by status.successful', async () => {
    const r = await call('GET', `${JOBS}?fieldSelector=status.successful%3D0`);
    expect(r.body.items.map((j: { metadata: { name: string } }) => j.metadata.name)).toEqual(['pi']);
    const none = await call('GET', `${JOBS}?fieldSelector=status.successful%3D1`);
    expect(none.body.items).toEqual([]);
  });

  it('prints NAME STATUS COMPLETIONS DURATION AGE', async () => {
    const r = await call('GET', JOBS, undefined, 'application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    expect(r.body.rows[0].cells.slice(0, 4)).toEqual(['pi', 'Running', '0/1', '']);
  });
});

describe('cronjobs', () => {
  it('defaults a CronJob and leaves its jobTemplate without Job defaults', async () => {
    const r = await call('POST', CRONJOBS, hello);
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(r.body.spec.jobTemplate.spec.backoffLimit).toBeUndefined();
    expect(r.body.spec.jobTemplate.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
  });

  it('refuses a bad schedule, a TZ in the schedule and an unknown time zone', async () => {
    const bad = structuredClone(hello) as any;
    bad.metadata.name = 'bad';
    bad.spec.schedule = '* * * *';
    bad.spec.timeZone = 'Mars/Olympus';
    const r = await call('POST', CRONJOBS, bad);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]');
    expect(r.body.message).toContain('spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
    bad.spec.schedule = 'TZ=UTC 0 * * * *';
    delete bad.spec.timeZone;
    const t = await call('POST', CRONJOBS, bad);
    expect(t.body.message).toContain('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  });

  it('prints NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE', async () => {
    const r = await call('GET', CRONJOBS, undefined, 'application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    expect(r.body.rows[0].cells.slice(0, 6)).toEqual(['hello', '* * * * *', '<none>', 'False', 0, '<none>']);
  });
});

// Jobs on a process lab, as a learner meets them with kubectl 1.32: kubernetes.io's pi Job applied, waited
// for and its log read; CronJobs created and a Job made from one; and an Indexed Job whose controller-manager
// leader is killed mid-way, which still completes every index exactly once with no extra pod (the
// job-tracking finalizer at work). Observed through watches and `kubectl wait`, never through sleeps.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';
import { call, rec, LeaseWatch, PodWatch } from '../lab/api.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: no kubectl');
if (skip) console.warn(`test/workloads/jobs.test.ts: ${skip}`);

// kubernetes.io/examples/controllers/job.yaml and application/job/cronjob.yaml, as published.
const PI_JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
  backoffLimit: 4
`;
const HELLO_CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox:1.28
            imagePullPolicy: IfNotPresent
            command:
            - /bin/sh
            - -c
            - date; echo Hello from the Kubernetes cluster
          restartPolicy: OnFailure
`;

describe.skipIf(skip)('Jobs and CronJobs (processes, kubectl 1.32)', () => {
  let lab: Lab;
  let cmLease: LeaseWatch;
  const kubectl = async (...args: string[]) => {
    const r = await lab.kubectl(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.code} ${r.stderr}`);
    return r.stdout;
  };

  beforeAll(async () => {
    lab = await startLab({ apiservers: 1, controllerManagers: 2, schedulers: 1, workers: 1, imagePullDelay: '0s' });
    await lab.waitRunning(undefined, 90_000);
    cmLease = new LeaseWatch(lab.server, 'kube-controller-manager');
    await cmLease.start();
    await waitFor('the default ServiceAccount', async () => (await lab.kubectl('get', 'serviceaccount', 'default')).code === 0, 60_000, 200);
  }, 120_000);
  afterAll(async () => {
    cmLease?.stop();
    await lab?.down();
  }, 60_000);

  it('the pi Job completes and `kubectl logs job/pi` prints π', async () => {
    const file = path.join(lab.dir, 'job.yaml');
    fs.writeFileSync(file, PI_JOB);
    expect(await kubectl('apply', '-f', file)).toBe('job.batch/pi created\n');
    expect(await kubectl('wait', '--for=condition=complete', 'job/pi', '--timeout=60s')).toBe('job.batch/pi condition met\n');
    const log = await kubectl('logs', 'job/pi');
    expect(log.startsWith('3.14159265358979323846264338327950288419716939937510')).toBe(true);
    expect(log.trim()).toHaveLength(2001);
    const table = (await kubectl('get', 'jobs')).split('\n');
    expect(table[0]).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
    expect(table[1]).toMatch(/^pi\s+Complete\s+1\/1\s+\d+s\s+\d+s$/);
  }, 90_000);

  it('kubectl create cronjob, apply of hello, create job --from=cronjob/…, get cronjobs', async () => {
    // A schedule that cannot come round during the test (midnight of 29 February), so ACTIVE and LAST SCHEDULE stay
    // as created whatever the wall clock; "*/5" fired whenever the test ran across a five-minute mark.
    expect(await kubectl('create', 'cronjob', 'tick', '--image=busybox', '--schedule=0 0 29 2 *', '--', 'echo', 'tick')).toBe('cronjob.batch/tick created\n');
    const file = path.join(lab.dir, 'cronjob.yaml');
    fs.writeFileSync(file, HELLO_CRONJOB);
    expect(await kubectl('apply', '-f', file)).toBe('cronjob.batch/hello created\n');
    expect(await kubectl('create', 'job', 'manual', '--from=cronjob/tick')).toBe('job.batch/manual created\n');
    const job = rec(JSON.parse(await kubectl('get', 'job', 'manual', '-o', 'json')));
    expect(rec(rec(job.metadata).annotations)['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(await kubectl('create', 'job', 'once', '--image=busybox', '--', 'echo', 'once')).toBe('job.batch/once created\n');
    await kubectl('wait', '--for=condition=complete', 'job/manual', 'job/once', '--timeout=60s');
    expect(await kubectl('logs', 'job/manual')).toBe('tick\n');
    const table = (await kubectl('get', 'cronjobs')).split('\n');
    expect(table[0]).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
    expect(table.some((l) => /^tick\s+0 0 29 2 \*\s+<none>\s+False\s+0\s+<none>\s+\d+s$/.test(l))).toBe(true);
  }, 90_000);

  it('an Indexed Job completes each index exactly once although the controller-manager leader is killed mid-way', async () => {
    const created = new Map<string, string>(); // pod name → completion index
    const pods = new PodWatch(lab.server, 'default', 'batch.kubernetes.io/job-name=indexed', (w) => {
      for (const p of w.pods.values()) created.set(p.name, p.labels['batch.kubernetes.io/job-completion-index'] ?? '?');
    });
    await pods.start();
    try {
      const job = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'indexed', namespace: 'default' },
        spec: {
          completionMode: 'Indexed',
          completions: 12,
          parallelism: 3,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo index $JOB_COMPLETION_INDEX; sleep 2'] }] } },
        },
      };
      const r = await call(lab.server, 'POST', '/apis/batch/v1/namespaces/default/jobs', job);
      expect(r.status).toBe(201);
      // Mid-way: some indexes done, others running.
      await waitFor('some indexes complete', async () => {
        const j = rec((await call(lab.server, 'GET', '/apis/batch/v1/namespaces/default/jobs/indexed')).body);
        return ((rec(j.status).succeeded as number | undefined) ?? 0) >= 3;
      }, 60_000, 100);
      const leader = await waitFor('a leader', () => cmLease.component() || undefined, 30_000, 50);
      const tKill = Date.now();
      const k = await lab.kemu('kill', leader);
      expect(k.code).toBe(0);
      await waitFor('a new leader', () => cmLease.takeover(leader, tKill), 30_000, 50);
      await kubectl('wait', '--for=condition=complete', 'job/indexed', '--timeout=90s');
      const done = rec(JSON.parse(await kubectl('get', 'job', 'indexed', '-o', 'json')));
      expect(rec(done.status)).toMatchObject({ succeeded: 12, completedIndexes: '0-11', uncountedTerminatedPods: {} });
      const perIndex = new Map<string, number>();
      for (const ix of created.values()) perIndex.set(ix, (perIndex.get(ix) ?? 0) + 1);
      console.log(`indexed job under a leader kill: ${created.size} pods for 12 indexes`);
      expect([...perIndex.keys()].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
      expect(created.size, 'no extra pod').toBe(12);
      // And its pods say which index they ran.
      const anyPod = [...created.keys()].find((n) => n.startsWith('indexed-5-'));
      expect(await kubectl('logs', anyPod ?? '')).toBe('index 5\n');
    } finally {
      pods.stop();
    }
  }, 150_000);
});

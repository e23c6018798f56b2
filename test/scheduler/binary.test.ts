// kube-scheduler's command line: bad configuration and bad flags exit 2 with a message naming the problem;
// --secure-port serves /healthz to anyone and /metrics to whom delegated authorization allows, over HTTPS.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, killAll, startProcess, waitFor } from '@kemu/base/testing/processes';
import { createNode, createPod, podSpec, startEnv, waitBound, type Env } from './cluster.ts';
import { secureGet, testClientCA } from '../support/secure-port.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kemu-sched-bin-'));
let env: Env | undefined;

afterAll(async () => {
  await killAll();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function configFile(text: string): string {
  const f = path.join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(f, text);
  return f;
}

describe('kube-scheduler binary', () => {
  it('an invalid config exits 2 naming the field', async () => {
    const f = configFile('apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 150\n');
    const p = startProcess('bad-config', BIN.scheduler, [`--config=${f}`, '--master=http://127.0.0.1:1']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]');
  });

  it('an unknown field exits 2', async () => {
    const f = configFile('apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n  plugin: {}\n');
    const p = startProcess('bad-field', BIN.scheduler, [`--config=${f}`, '--master=http://127.0.0.1:1']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('strict decoding error: unknown field "profiles[0].plugin"');
  });

  it('an unknown plugin exits 2', async () => {
    const f = configFile(
      'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n  plugins:\n    filter:\n      enabled: [{ name: NoSuchPlugin }]\n',
    );
    const p = startProcess('bad-plugin', BIN.scheduler, [`--config=${f}`, '--master=http://127.0.0.1:1', '--leader-elect=false']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('plugin "NoSuchPlugin" does not exist');
  });

  it('an unknown flag exits 2', async () => {
    const p = startProcess('bad-flag', BIN.scheduler, ['--no-such-flag']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('unknown flag: --no-such-flag');
  });

  it('serves /healthz and /metrics with scheduling metrics', async () => {
    env = await startEnv();
    await createNode(env.client, 'n1');
    const port = await freePort();
    const ca = await testClientCA();
    env.startScheduler('metrics', ['--leader-elect=false', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--client-ca-file=${ca.caFile}`]);
    await createPod(env.client, podSpec('m1'));
    await waitBound(env.client, 'm1');
    const health = await waitFor('healthz', async () => {
      const r = await secureGet(`https://127.0.0.1:${port}/healthz`).catch(() => undefined);
      return r?.status === 200 ? r.body : undefined;
    });
    expect(health).toBe('ok');
    // Without --authorization-kubeconfig only system:masters gets past the always-allowed paths.
    const anon = await secureGet(`https://127.0.0.1:${port}/metrics`);
    expect(anon.status).toBe(403);
    expect(JSON.parse(anon.body).message).toBe('forbidden: User "system:anonymous" cannot get path "/metrics"');
    const body = await waitFor('metrics', async () => {
      const t = (await secureGet(`https://127.0.0.1:${port}/metrics`, { cred: ca.admin })).body;
      return t.includes('scheduler_schedule_attempts_total{result="scheduled",profile="default-scheduler"} 1') ? t : undefined;
    });
    ca.cleanup();
    expect(body).toContain('scheduler_pending_pods{queue="active"}');
    expect(body).toContain('scheduler_scheduling_attempt_duration_seconds_bucket');
    expect(body).toContain('scheduler_pod_scheduling_sli_duration_seconds_bucket');
  });
});

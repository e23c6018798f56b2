// The compose lab end to end: build the image, `docker-compose up -d`, wait for 3 Ready nodes through HAProxy
// with kubectl, check the leader Leases, tear down. Starts dockerd itself when none runs (and stops it).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { freePort } from '@kemu/base/testing/ports';
import { ROOT, kubeconfigYaml, leaseHolder } from '@kemu/kemu';
import { missing, hasKubectl, run } from './lab.ts';
import { dockerUnavailable, ensureEngine, type Engine } from './docker.ts';

const skip =
  missing('apiserver', 'controller-manager', 'scheduler', 'worker') ??
  (hasKubectl() ? undefined : 'skipped: kubectl is not installed') ??
  (process.env.KEMU_SKIP_DOCKER ? 'skipped: KEMU_SKIP_DOCKER is set' : undefined) ??
  dockerUnavailable();
if (skip) console.warn(`test/lab/docker-lab.test.ts: ${skip}`);

describe.skipIf(skip)('docker-compose lab', () => {
  let engine: Engine | undefined;
  let why: string | undefined;
  const project = `kemulab${process.pid}`;
  let env: Record<string, string> = {};
  let kubeconfig = '';
  let server = '';
  const compose = (...args: string[]) => run('docker-compose', ['-p', project, '-f', path.join(ROOT, 'docker-compose.yml'), ...args], env, 900_000);

  beforeAll(async () => {
    const e = await ensureEngine();
    if (typeof e === 'string') {
      why = e;
      console.warn(`test/lab/docker-lab.test.ts: ${e}`);
      return;
    }
    engine = e;
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    env = {
      KEMU_LB_PORT: String(port),
      KEMU_STATS_PORT: String(await freePort()),
      KEMU_LEASE_DURATION: '4s',
      KEMU_RENEW_DEADLINE: '3s',
      KEMU_RETRY_PERIOD: '1s',
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-docker-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfig, kubeconfigYaml(server));
    execFileSync('bash', [path.join(ROOT, 'scripts/build-base-images.sh')], { stdio: 'inherit', timeout: 900_000 });
    const b = await compose('build');
    if (b.code !== 0) throw new Error(`docker-compose build failed:\n${b.stdout.slice(-3000)}\n${b.stderr.slice(-3000)}`);
    const u = await compose('up', '-d');
    if (u.code !== 0) throw new Error(`docker-compose up failed:\n${u.stderr.slice(-3000)}`);
  }, 1_200_000);

  afterAll(async () => {
    if (engine) {
      const logs = await compose('logs', '--no-color', '--tail=20');
      if (logs.code === 0) fs.writeFileSync(path.join(os.tmpdir(), `${project}.log`), logs.stdout);
      await compose('down', '-v', '--remove-orphans', '-t', '5');
      await engine.stop();
    }
  }, 180_000);

  it('reaches 3 Ready nodes through HAProxy and elects one leader of each kind', async (ctx) => {
    if (why) ctx.skip();
    const kubectl = (...a: string[]) => run('kubectl', [`--kubeconfig=${kubeconfig}`, ...a], { HOME: path.dirname(kubeconfig) });
    const t0 = Date.now();
    await waitFor('3 Ready nodes', async () => {
      const r = await kubectl('get', 'nodes', '--no-headers');
      return r.code === 0 && r.stdout.split('\n').filter((l) => /^worker-\d\s+Ready\s/.test(l)).length === 3;
    }, 300_000, 1000);
    console.log(`compose lab: 3 nodes Ready ${((Date.now() - t0) / 1000).toFixed(1)}s after docker-compose up returned`);
    const cm = await waitFor('controller-manager leader', async () => (await leaseHolder(server, 'kube-controller-manager')).component, 60_000, 500);
    const sched = await waitFor('scheduler leader', async () => (await leaseHolder(server, 'kube-scheduler')).component, 60_000, 500);
    expect(cm).toMatch(/^controller-manager-[0-2]$/);
    expect(sched).toMatch(/^scheduler-[0-2]$/);
    const leases = await kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', 'kube-scheduler', '--no-headers');
    expect(leases.stdout).toContain(`${cm}_`);
  }, 420_000);
});

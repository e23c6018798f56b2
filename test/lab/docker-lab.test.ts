// The compose lab end to end: build the image, `docker-compose up -d`, wait for 3 Ready nodes through HAProxy
// with kubectl, check the leader Leases, tear down. Starts dockerd itself when none runs (and stops it).
// Run: KEMU_DOCKER_TESTS=1 npx vitest run test/lab/docker-lab.test.ts
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

// Opt-in: it builds images (minutes when none are cached), starts its own dockerd and needs root, so a plain
// `npm test` — and several people testing on one machine — never pay for it or fight over the engine.
const skip =
  (process.env.KEMU_DOCKER_TESTS === '1' ? undefined : 'skipped: the Docker lab runs only with KEMU_DOCKER_TESTS=1 (needs root, docker.io, docker-compose and debootstrap; builds the images, ~1 min with them cached, several without)') ??
  missing('apiserver', 'controller-manager', 'scheduler', 'worker') ??
  (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/lab/docker-lab.test.ts: ${skip}`);

describe.skipIf(skip)('docker-compose lab', () => {
  let engine: Engine | undefined;
  const project = `kemulab${process.pid}`;
  let env: Record<string, string> = {};
  let kubeconfig = '';
  let server = '';
  const compose = (...args: string[]) => run('docker-compose', ['-p', project, '-f', path.join(ROOT, 'docker-compose.yml'), ...args], env, 900_000);

  beforeAll(async () => {
    // Asked for explicitly, so a machine that cannot run it fails instead of skipping quietly.
    const unavailable = dockerUnavailable();
    if (unavailable) throw new Error(`KEMU_DOCKER_TESTS=1 but ${unavailable.replace(/^skipped: /, '')}`);
    const e = await ensureEngine();
    if (typeof e === 'string') throw new Error(`KEMU_DOCKER_TESTS=1 but ${e.replace(/^skipped: /, '')}`);
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

  it('reaches 3 Ready nodes through HAProxy and elects one leader of each kind', async () => {
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

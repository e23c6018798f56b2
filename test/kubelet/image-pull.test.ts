// The kubernetes.io rolling-update tutorial's bad tag, with kubectl 1.32 against an apiserver, a
// controller-manager, a scheduler and one emulated kubelet (short image back-off flags): the v10 rollout
// gets stuck with its new pods in ErrImagePull/ImagePullBackOff while the old pods keep running, `kubectl
// describe` shows the kubelet's and containerd's messages, and `kubectl rollout undo` recovers it. And a
// repository marked private by --image-catalog pulls only with a `kubectl create secret docker-registry` Secret.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R, type Node } from '@kemu/api';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { startCluster, startKubelet, type TestCluster } from './cluster.ts';

let cluster: TestCluster;
const NODE = 'pull-node';
const DEPLOY = 'deployments/kubernetes-bootcamp';
const V2 = 'docker.io/jocatalin/kubernetes-bootcamp:v2';
const V10 = 'gcr.io/google-samples/kubernetes-bootcamp:v10';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function kubectl(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--server', cluster.url, ...args], { env: { ...process.env, KUBECONFIG: '/dev/null' }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr });
    });
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  expect(r.code, `kubectl ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

interface PodRow {
  name: string;
  status: string;
}

/** `kubectl get pods -l app=kubernetes-bootcamp` rows (NAME, STATUS), skipping pods being deleted. */
async function pods(): Promise<PodRow[]> {
  const out = await ok('get', 'pods', '-l', 'app=kubernetes-bootcamp', '--no-headers');
  return out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(/\s+/))
    .map((f) => ({ name: f[0] ?? '', status: f[2] ?? '' }))
    .filter((p) => p.status !== 'Terminating');
}

async function image(pod: string): Promise<string> {
  return ok('get', 'pod', pod, '-o', 'jsonpath={.spec.containers[0].image}');
}

beforeAll(async () => {
  cluster = await startCluster();
  const catalog = path.join(cluster.dir, 'catalog.yaml');
  writeFileSync(catalog, 'repositories:\n  registry.example.com/team/app:\n    tags: [v1]\n    private: true\n');
  startKubelet(cluster, [`--hostname-override=${NODE}`, '--node-status-update-frequency=1s', '--image-pull-backoff=1s', '--image-pull-max-backoff=4s', `--image-catalog=${catalog}`]);
  cluster.procs.push(startProcess('kube-scheduler', BIN.scheduler, [`--master=${cluster.url}`, '--leader-elect=false', '--secure-port=0']));
  cluster.procs.push(startProcess('kube-controller-manager', BIN.controllerManager, [`--master=${cluster.url}`, '--leader-elect=false', '--secure-port=0']));
  await waitFor(`${NODE} Ready`, async () => {
    const n = await cluster.client.get<Node>(R.nodes, undefined, NODE).catch(() => undefined);
    return n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  }, 30_000, 100);
}, 60_000);
afterAll(async () => cluster?.close());

describe('the rolling-update tutorial with a tag that does not exist', () => {
  it('kubectl create deployment (v1, 4 replicas), set image to v2: rolled out', async () => {
    await waitFor('the default ServiceAccount', async () => (await kubectl('get', 'serviceaccount', 'default')).code === 0, 30_000, 200);
    expect(await ok('create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1', '--replicas=4')).toContain('deployment.apps/kubernetes-bootcamp created');
    expect(await ok('rollout', 'status', DEPLOY, '--timeout=60s')).toContain('deployment "kubernetes-bootcamp" successfully rolled out');
    expect(await ok('set', 'image', DEPLOY, `kubernetes-bootcamp=${V2}`)).toContain('deployment.apps/kubernetes-bootcamp image updated');
    expect(await ok('rollout', 'status', DEPLOY, '--timeout=60s')).toContain('successfully rolled out');
  }, 90_000);

  it('set image to v10: the new pods go ErrImagePull → ImagePullBackOff, the rollout is stuck, the v2 pods keep running', async () => {
    expect(await ok('set', 'image', DEPLOY, `kubernetes-bootcamp=${V10}`)).toContain('image updated');
    // maxSurge and maxUnavailable 25 % of 4: two new pods, three old ones left running.
    const seen = new Set<string>();
    const rows = await waitFor('new pods in ImagePullBackOff', async () => {
      const list = await pods();
      for (const p of list) seen.add(p.status);
      const stuck = list.filter((p) => p.status === 'ImagePullBackOff' || p.status === 'ErrImagePull');
      return stuck.length === 2 && list.filter((p) => p.status === 'Running').length === 3 && list.some((p) => p.status === 'ImagePullBackOff') ? list : undefined;
    }, 60_000, 200);
    expect(seen.has('ErrImagePull')).toBe(true);
    for (const p of rows) expect(await image(p.name)).toBe(p.status === 'Running' ? V2 : V10);

    const status = await kubectl('rollout', 'status', DEPLOY, '--timeout=3s');
    expect(status.code).not.toBe(0);
    expect(status.stdout).toContain('Waiting for deployment "kubernetes-bootcamp" rollout to finish: 2 out of 4 new replicas have been updated...');
    expect(await ok('get', 'deployments', 'kubernetes-bootcamp', '--no-headers')).toMatch(/^kubernetes-bootcamp\s+3\/4\s+2\s+3\s/);

    const bad = rows.find((p) => p.status !== 'Running')?.name ?? '';
    const described = await waitFor('describe shows the back-off', async () => {
      const out = await ok('describe', 'pod', bad);
      return out.includes('Back-off pulling image') ? out : undefined;
    }, 30_000, 500);
    const events = described.slice(described.indexOf('Events:'));
    expect(events).toMatch(/Normal\s+Pulling\s+.*kubelet\s+Pulling image "gcr\.io\/google-samples\/kubernetes-bootcamp:v10"/);
    expect(events).toContain(
      `Failed to pull image "${V10}": rpc error: code = NotFound desc = failed to pull and unpack image "${V10}": failed to resolve reference "${V10}": ${V10}: not found`,
    );
    expect(events).toMatch(/Warning\s+Failed\s+.*kubelet\s+Error: ErrImagePull/);
    expect(events).toMatch(/Normal\s+BackOff\s+.*kubelet\s+Back-off pulling image "gcr\.io\/google-samples\/kubernetes-bootcamp:v10"/);
    expect(events).toMatch(/Warning\s+Failed\s+.*kubelet\s+Error: ImagePullBackOff/);
    expect(described).toMatch(/State:\s+Waiting\n\s+Reason:\s+(ImagePullBackOff|ErrImagePull)/);
  }, 90_000);

  it('kubectl rollout undo: back to v2, four pods Running', async () => {
    expect(await ok('rollout', 'undo', DEPLOY)).toContain('deployment.apps/kubernetes-bootcamp rolled back');
    expect(await ok('rollout', 'status', DEPLOY, '--timeout=60s')).toContain('successfully rolled out');
    const rows = await waitFor('4 Running pods', async () => {
      const list = await pods();
      return list.length === 4 && list.every((p) => p.status === 'Running') ? list : undefined;
    }, 60_000, 200);
    for (const p of rows) expect(await image(p.name)).toBe(V2);
  }, 90_000);
});

describe('a private repository (marked so with --image-catalog)', () => {
  const IMAGE = 'registry.example.com/team/app:v1';
  const status = async (pod: string) => (await ok('get', 'pod', pod, '--no-headers')).split(/\s+/)[2];

  it('without imagePullSecrets: ErrImagePull with the registry\'s 401; with a docker-registry Secret: Running', async () => {
    expect(await ok('run', 'nosecret', `--image=${IMAGE}`)).toContain('pod/nosecret created');
    await waitFor('nosecret failing to pull', async () => ['ErrImagePull', 'ImagePullBackOff'].includes((await status('nosecret')) ?? ''), 30_000, 200);
    const msg = await ok('get', 'pod', 'nosecret', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.message}');
    const denied =
      'rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/team/app:v1": failed to resolve reference "registry.example.com/team/app:v1": unexpected status from HEAD request to https://registry.example.com/v2/team/app/manifests/v1: 401 Unauthorized';
    expect([denied, `Back-off pulling image "${IMAGE}": ErrImagePull: ${denied}`]).toContain(msg);

    expect(await ok('create', 'secret', 'docker-registry', 'regcred', '--docker-server=registry.example.com', '--docker-username=learner', '--docker-password=secret')).toContain('secret/regcred created');
    const overrides = JSON.stringify({ spec: { imagePullSecrets: [{ name: 'regcred' }] } });
    expect(await ok('run', 'withsecret', `--image=${IMAGE}`, `--overrides=${overrides}`)).toContain('pod/withsecret created');
    await waitFor('withsecret Running', async () => (await status('withsecret')) === 'Running', 30_000, 200);
  }, 90_000);
});

// A user's first kubectl session against `kemu up`, one command after another on one cluster: create a
// Deployment, watch it roll out, expose it, change its image and roll back, edit it, look at and cordon/drain
// nodes, read logs, wait, list events, run a one-shot pod, delete, and the discovery commands (cs,
// api-resources, version, cluster-info). Each step asserts kubectl's exit code and the text a user reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, run, type Lab, type RunResult } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/kubectl-tour.test.ts: ${skip}`);

/** A successful kubectl run: exit 0, stdout returned (stderr in the failure message). */
function ok(r: RunResult): string {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

interface PodLite {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string };
}

function ipInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

describe.skipIf(skip)('kubectl tour (a first session against kemu up)', () => {
  let lab: Lab;
  const k = (...a: string[]) => lab.kubectl(...a);
  const webPods = async () => (await lab.kubectlJson<{ items: PodLite[] }>('get', 'pods', '-l', 'app=web')).items;
  /** Web pods that are Running and not being deleted, once there are exactly n of them. */
  const runningWeb = (n: number, what: string) =>
    waitFor(what, async () => {
      const list = await lab.kubectlJson<{ items: (PodLite & { metadata: { deletionTimestamp?: string } })[] }>('get', 'pods', '-l', 'app=web');
      const live = list.items.filter((p) => !p.metadata.deletionTimestamp);
      return live.length === n && live.every((p) => p.status.phase === 'Running') ? live : undefined;
    }, 90_000, 300);

  beforeAll(async () => {
    lab = await startLab({ apiservers: 3, controllerManagers: 2, schedulers: 2, workers: 2 });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('2 Ready nodes', async () => {
      const r = await k('get', 'nodes', '--no-headers');
      return r.stdout.split('\n').filter((l) => /^worker-[01]\s+Ready\s/.test(l)).length === 2;
    }, 60_000, 300);
  }, 180_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('kubectl create deployment web --image=nginx --replicas=2; rollout status says "successfully rolled out"', async () => {
    expect(ok(await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2'))).toContain('deployment.apps/web created');
    expect(ok(await k('rollout', 'status', 'deployment/web', '--timeout=90s'))).toContain('deployment "web" successfully rolled out');
  }, 120_000);

  it('kubectl get all lists pod/, service/, deployment.apps/ and replicaset.apps/ rows', async () => {
    const out = ok(await k('get', 'all'));
    expect(out.match(/^pod\/web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s/gm)).toHaveLength(2);
    expect(out).toMatch(/^service\/kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s/m);
    expect(out).toMatch(/^deployment\.apps\/web\s+2\/2\s+2\s+2\s/m);
    expect(out).toMatch(/^replicaset\.apps\/web-[a-z0-9]+\s+2\s+2\s+2\s/m);
  });

  it('kubectl expose deployment web --port=80: a ClusterIP in 10.96.0.0/12 and 2 endpoints', async () => {
    expect(ok(await k('expose', 'deployment', 'web', '--port=80'))).toContain('service/web exposed');
    const svc = ok(await k('get', 'svc', 'web'));
    expect(svc).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE/);
    const m = /\nweb\s+ClusterIP\s+(\d+\.\d+\.\d+\.\d+)\s+<none>\s+80\/TCP\s/.exec(svc);
    expect(m, svc).not.toBeNull();
    const ip = ipInt(m?.[1] ?? '');
    expect(ip >= ipInt('10.96.0.0') && ip < ipInt('10.112.0.0')).toBe(true);
    const pods = await webPods();
    const eps = await waitFor('endpoints web lists both pods', async () => {
      const r = await k('get', 'endpoints', 'web', '--no-headers');
      const addrs = /^web\s+(\S+)\s/.exec(r.stdout)?.[1]?.split(',') ?? [];
      return addrs.length === 2 ? addrs : undefined;
    }, 30_000, 300);
    expect(eps.sort()).toEqual(pods.map((p) => `${p.status.podIP}:80`).sort());
  }, 60_000);

  it('kubectl set image → rollout status; rollout history shows 2 revisions; rollout undo goes back to nginx', async () => {
    expect(ok(await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27'))).toContain('deployment.apps/web image updated');
    expect(ok(await k('rollout', 'status', 'deployment/web', '--timeout=90s'))).toContain('successfully rolled out');
    const hist = ok(await k('rollout', 'history', 'deployment/web'));
    expect(hist).toMatch(/^deployment\.apps\/web\s*\nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
    const image = async () => ok(await k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'));
    expect(await image()).toBe('nginx:1.27');
    expect(ok(await k('rollout', 'undo', 'deployment/web'))).toContain('deployment.apps/web rolled back');
    expect(ok(await k('rollout', 'status', 'deployment/web', '--timeout=90s'))).toContain('successfully rolled out');
    expect(await image()).toBe('nginx');
    // Rolling back re-labels revision 1 as revision 3.
    expect(ok(await k('rollout', 'history', 'deployment/web'))).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n/);
    const pods = await runningWeb(2, '2 Running web pods after the undo');
    expect(pods).toHaveLength(2);
  }, 180_000);

  it('kubectl edit with KUBE_EDITOR=sed changing replicas 2 → 3 gives 3 pods', async () => {
    const r = await run('kubectl', [`--kubeconfig=${lab.kubeconfig}`, 'edit', 'deployment/web'], { HOME: lab.dir, KUBE_EDITOR: 'sed -i s/replicas:\\ 2/replicas:\\ 3/' });
    expect(ok(r)).toContain('deployment.apps/web edited');
    expect(ok(await k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'))).toBe('3');
    await runningWeb(3, '3 Running web pods');
    expect(ok(await k('rollout', 'status', 'deployment/web', '--timeout=90s'))).toContain('successfully rolled out');
  }, 120_000);

  it('kubectl describe node worker-0 shows Conditions, Capacity, Allocatable and Non-terminated Pods', async () => {
    const out = ok(await k('describe', 'node', 'worker-0'));
    expect(out).toMatch(/^Name:\s+worker-0$/m);
    expect(out).toMatch(/^Conditions:\n\s+Type\s+Status\s+LastHeartbeatTime\s+LastTransitionTime\s+Reason\s+Message$/m);
    expect(out).toMatch(/^\s+Ready\s+True\s.*KubeletReady\s/m);
    expect(out).toMatch(/^Capacity:\n(\s+\S+:\s+\S+\n)*\s+pods:\s+110$/m);
    expect(out).toMatch(/^Allocatable:\n(\s+\S+:\s+\S+\n)*\s+cpu:\s+\S+$/m);
    expect(out).toMatch(/^Non-terminated Pods:\s+\(\d+ in total\)\n\s+Namespace\s+Name\s+CPU Requests/m);
    const here = (await webPods()).filter((p) => p.spec.nodeName === 'worker-0');
    for (const p of here) expect(out).toContain(p.metadata.name);
  });

  it('kubectl cordon worker-0 → SchedulingDisabled in get nodes and the unschedulable taint; uncordon → Ready, taint gone', async () => {
    const taints = async () => (await lab.kubectlJson<{ spec: { taints?: { key: string; effect: string }[] } }>('get', 'node', 'worker-0')).spec.taints ?? [];
    const cordonTaint = (ts: { key: string; effect: string }[]) => ts.some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule');
    expect(ok(await k('cordon', 'worker-0'))).toContain('node/worker-0 cordoned');
    expect(ok(await k('get', 'nodes'))).toMatch(/\nworker-0\s+Ready,SchedulingDisabled\s/);
    // The node lifecycle controller adds the taint on the Node's update (kubectl describe: "Taints: node.kubernetes.io/unschedulable:NoSchedule").
    await waitFor('the unschedulable taint', async () => cordonTaint(await taints()), 20_000, 200);
    expect(ok(await k('describe', 'node', 'worker-0'))).toMatch(/^Taints:\s+node\.kubernetes\.io\/unschedulable:NoSchedule$/m);
    expect(ok(await k('uncordon', 'worker-0'))).toContain('node/worker-0 uncordoned');
    expect(ok(await k('get', 'nodes'))).toMatch(/\nworker-0\s+Ready\s+<none>\s/);
    await waitFor('the unschedulable taint removed', async () => !cordonTaint(await taints()), 20_000, 200);
  }, 60_000);

  it('kubectl drain worker-1 evicts its pods and they are rescheduled on worker-0; then uncordon', async () => {
    const before = (await webPods()).filter((p) => p.spec.nodeName === 'worker-1').map((p) => p.metadata.name);
    const out = ok(await k('drain', 'worker-1', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=90s'));
    expect(out).toContain('node/worker-1 cordoned');
    for (const name of before) expect(out).toContain(`pod/${name} evicted`);
    expect(out).toContain('node/worker-1 drained');
    expect(ok(await k('get', 'nodes'))).toMatch(/\nworker-1\s+Ready,SchedulingDisabled\s/);
    const pods = await runningWeb(3, '3 Running web pods after the drain');
    for (const p of pods) expect(p.spec.nodeName).toBe('worker-0');
    for (const name of before) expect(pods.map((p) => p.metadata.name)).not.toContain(name);
    expect(ok(await k('uncordon', 'worker-1'))).toContain('node/worker-1 uncordoned');
    expect(ok(await k('get', 'nodes'))).toMatch(/\nworker-1\s+Ready\s+<none>\s/);
  }, 120_000);

  it('kubectl logs <pod> exits 0 with a text/plain reply; kubectl wait --for=condition=Ready', async () => {
    const [pod] = await webPods();
    const r = await k('logs', pod?.metadata.name ?? '', '-v=8');
    expect(r.code, r.stderr).toBe(0);
    // -v=8 prints the reply's status and headers after the request line of the log GET.
    const reply = r.stderr.slice(r.stderr.search(/GET \S+\/api\/v1\/namespaces\/default\/pods\/web-\S+\/log\?container=nginx\n/));
    expect(reply).toMatch(/^GET /);
    expect(reply).toContain('Response Status: 200 OK');
    expect(reply).toMatch(/Content-Type: text\/plain/);
    // The emulated nginx's start-up line, read from its kubelet through the apiserver.
    expect(r.stdout).toMatch(/^kemu: emulated nginx started, serving HTTP on port 80$/m);
    const w = ok(await k('wait', '--for=condition=Ready', 'pod', '-l', 'app=web', '--timeout=60s'));
    expect(w.match(/^pod\/web-\S+ condition met$/gm)).toHaveLength(3);
  }, 90_000);

  it("kubectl logs of the busybox loop prints its three lines and the pod completes; -f follows one to its end; --previous shows a crashed container's output", async () => {
    const loop = 'for i in 1 2 3; do echo hello $i; sleep 1; done';
    ok(await k('run', 'loop', '--image=busybox', '--restart=Never', '--', 'sh', '-c', loop));
    ok(await k('run', 'loopf', '--image=busybox', '--restart=Never', '--', 'sh', '-c', loop));
    ok(await k('run', 'boom', '--image=busybox', '--', 'sh', '-c', 'echo boom; exit 1'));
    await waitFor('loop Succeeded', async () => (await k('get', 'pod', 'loop', '-o', 'jsonpath={.status.phase}')).stdout === 'Succeeded', 60_000, 300);
    expect(ok(await k('logs', 'loop'))).toBe('hello 1\nhello 2\nhello 3\n');
    expect(ok(await k('logs', 'loop', '--tail=1'))).toBe('hello 3\n');
    // -f on a container still starting waits for it, then streams until the container exits.
    await waitFor('loopf running', async () => (await k('get', 'pod', 'loopf', '-o', 'jsonpath={.status.phase}')).stdout !== 'Pending', 60_000, 100);
    expect(ok(await k('logs', '-f', 'loopf'))).toContain('hello 3\n');
    await waitFor('boom restarted', async () => Number((await k('get', 'pod', 'boom', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}')).stdout) >= 1, 60_000, 300);
    expect(ok(await k('logs', 'boom', '--previous'))).toBe('boom\n');
    ok(await k('delete', 'pod', 'loop', 'loopf', 'boom', '--grace-period=0', '--force'));
  }, 150_000);

  it('kubectl get events --sort-by=.lastTimestamp has Scheduled, Pulled, Started and ScalingReplicaSet rows', async () => {
    const out = ok(await k('get', 'events', '--sort-by=.lastTimestamp'));
    expect(out).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(out).toMatch(/\sNormal\s+Scheduled\s+pod\/web-\S+\s+Successfully assigned default\/web-\S+ to worker-[01]/);
    expect(out).toMatch(/\sNormal\s+Pulled\s+pod\/web-\S+\s/);
    expect(out).toMatch(/\sNormal\s+Started\s+pod\/web-\S+\s+Started container nginx/);
    expect(out).toMatch(/\sNormal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up replica set web-\S+ from \d+ to \d+/);
  });

  it('kubectl run once --restart=Never -- sh -c "exit 0" → Completed; jsonpath lists pod IPs', async () => {
    expect(ok(await k('run', 'once', '--image=busybox', '--restart=Never', '--', 'sh', '-c', 'exit 0'))).toContain('pod/once created');
    await waitFor('pod once Completed', async () => /^once\s+0\/1\s+Completed\s+0\s/.test((await k('get', 'pod', 'once', '--no-headers')).stdout), 60_000, 300);
    expect(ok(await k('get', 'pod', 'once', '-o', 'jsonpath={.status.phase}'))).toBe('Succeeded');
    const ips = ok(await k('get', 'pods', '-o', 'jsonpath={.items[*].status.podIP}')).trim().split(' ');
    for (const p of await webPods()) expect(ips).toContain(p.status.podIP);
    for (const ip of ips) expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  }, 90_000);

  it('kubectl delete deployment web → its pods and ReplicaSets go', async () => {
    expect(ok(await k('delete', 'deployment', 'web'))).toContain('deployment.apps "web" deleted');
    await waitFor('no web pods', async () => (await webPods()).length === 0, 60_000, 300);
    await waitFor('no ReplicaSets', async () => (await lab.kubectlJson<{ items: unknown[] }>('get', 'rs')).items.length === 0, 60_000, 300);
    expect(ok(await k('get', 'pods', '--no-headers'))).toMatch(/^once\s+0\/1\s+Completed\s/);
  }, 90_000);

  it('kubectl get cs, api-resources, version and cluster-info', async () => {
    const cs = await waitFor('all componentstatuses Healthy', async () => {
      const g = await k('get', 'cs');
      return g.code === 0 && /\nscheduler\s+Healthy\s+ok/.test(g.stdout) && /\ncontroller-manager\s+Healthy\s+ok/.test(g.stdout) && /\netcd-0\s+Healthy\s+ok/.test(g.stdout) ? g : undefined;
    }, 30_000, 500);
    expect(cs.stdout).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+ERROR/);

    const ar = ok(await k('api-resources'));
    expect(ar).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND/);
    expect(ar).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
    expect(ar).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(ar).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);

    expect(ok(await k('version'))).toMatch(/^Server Version: v1\.31\.\d+/m);

    // cluster-info colours its output; strip the escapes before reading it.
    const ci = ok(await k('cluster-info')).replace(/\x1b\[[0-9;]*m/g, '');
    expect(ci).toContain(`Kubernetes control plane is running at ${lab.server}`);
  }, 60_000);
});

// DaemonSets and StatefulSets on one lab (3 workers) through kubectl 1.32, as kubernetes.io's pages run them:
// the fluentd-elasticsearch DaemonSet on every node, its rolling update, history and undo; the StatefulSet
// basics tutorial (web-0 then web-1, PVCs www-web-N, scale up and down in order, a partitioned rolling update,
// rollout status); and the controller-manager leader killed during a StatefulSet rollout: no pod ever outside
// the ordinals, none skipped, the rollout finishes under the next leader. Then the pod network between the
// workers: a NodePort on each node answers from the pods of all three.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab, type RunResult } from '../lab/lab.ts';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/workloads/sets.test.ts: ${skip}`);

function ok(r: RunResult): string {
  expect(r.code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

interface PodLite {
  metadata: { name: string; creationTimestamp: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string; hostname?: string; subdomain?: string; containers: { image: string }[] };
  status: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime: string }[] };
}

const DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
  labels:
    k8s-app: fluentd-logging
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
      - key: node-role.kubernetes.io/master
        operator: Exists
        effect: NoSchedule
      containers:
      - name: fluentd-elasticsearch
        image: quay.io/fluentd_elasticsearch/fluentd:v2.5.2
        resources:
          limits:
            memory: 200Mi
          requests:
            cpu: 100m
            memory: 200Mi
        volumeMounts:
        - name: varlog
          mountPath: /var/log
      terminationGracePeriodSeconds: 30
      volumes:
      - name: varlog
        hostPath:
          path: /var/log
`;

const WEB = `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.21
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
`;

// Three serve-hostname replicas, one per node (required anti-affinity), behind a NodePort Service.
const HOSTNAMES = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hostnames
spec:
  replicas: 3
  selector:
    matchLabels:
      app: hostnames
  template:
    metadata:
      labels:
        app: hostnames
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                app: hostnames
            topologyKey: kubernetes.io/hostname
      containers:
      - name: hostnames
        image: registry.k8s.io/e2e-test-images/agnhost:2.39
        args: ["serve-hostname"]
        ports:
        - containerPort: 9376
---
apiVersion: v1
kind: Service
metadata:
  name: hostnames
spec:
  type: NodePort
  selector:
    app: hostnames
  ports:
  - port: 80
    targetPort: 9376
`;

describe.skipIf(skip)('DaemonSets and StatefulSets with kubectl', () => {
  let lab: Lab;
  const k = (...a: string[]) => lab.kubectl(...a);
  const pods = async (selector: string, ns = 'default') => (await lab.kubectlJson<{ items: PodLite[] }>('get', 'pods', '-n', ns, '-l', selector)).items;
  const ready = (p: PodLite) => p.status.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

  beforeAll(async () => {
    lab = await startLab({ apiservers: 1, controllerManagers: 2, schedulers: 1, workers: 3 });
    await lab.waitRunning(undefined, 120_000);
    await waitFor('3 Ready nodes', async () => {
      const r = await k('get', 'nodes', '--no-headers');
      return r.stdout.split('\n').filter((l) => /^worker-\d\s+Ready\s/.test(l)).length === 3;
    }, 60_000, 300);
  }, 180_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('fluentd-elasticsearch runs on every node; a new image rolls out; history and undo', async () => {
    const file = path.join(lab.dir, 'ds.yaml');
    writeFileSync(file, DAEMONSET);
    expect(ok(await k('apply', '-f', file))).toContain('daemonset.apps/fluentd-elasticsearch created');
    expect(ok(await k('rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=60s'))).toContain('daemon set "fluentd-elasticsearch" successfully rolled out');
    const list = await pods('name=fluentd-elasticsearch', 'kube-system');
    expect(list.map((p) => p.spec.nodeName).sort()).toEqual(['worker-0', 'worker-1', 'worker-2']);
    const table = ok(await k('get', 'ds', '-n', 'kube-system'));
    expect(table).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE$/m);
    expect(table).toMatch(/^fluentd-elasticsearch\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\S+$/m);

    ok(await k('set', 'image', 'ds/fluentd-elasticsearch', 'fluentd-elasticsearch=quay.io/fluentd_elasticsearch/fluentd:v2.6.0', '-n', 'kube-system'));
    expect(ok(await k('rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=60s'))).toContain('successfully rolled out');
    const images = async () => (await pods('name=fluentd-elasticsearch', 'kube-system')).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.spec.containers[0]?.image);
    expect(await images()).toEqual(Array(3).fill('quay.io/fluentd_elasticsearch/fluentd:v2.6.0'));
    const history = ok(await k('rollout', 'history', 'ds/fluentd-elasticsearch', '-n', 'kube-system'));
    expect(history).toMatch(/^1\s+<none>$/m);
    expect(history).toMatch(/^2\s+<none>$/m);
    expect(ok(await k('get', 'controllerrevisions', '-n', 'kube-system'))).toMatch(/^fluentd-elasticsearch-\S+\s+daemonset\.apps\/fluentd-elasticsearch\s+2\s/m);

    expect(ok(await k('rollout', 'undo', 'ds/fluentd-elasticsearch', '-n', 'kube-system'))).toContain('daemonset.apps/fluentd-elasticsearch rolled back');
    expect(ok(await k('rollout', 'status', 'ds/fluentd-elasticsearch', '-n', 'kube-system', '--timeout=60s'))).toContain('successfully rolled out');
    await waitFor('the old image back on every node', async () => {
      const im = await images();
      return im.length === 3 && im.every((i) => i === 'quay.io/fluentd_elasticsearch/fluentd:v2.5.2');
    }, 30_000, 300);
  }, 120_000);

  it('the StatefulSet basics tutorial: ordered start, claims, scale up and down in order, partitioned update', async () => {
    const file = path.join(lab.dir, 'web.yaml');
    writeFileSync(file, WEB);
    const out = ok(await k('apply', '-f', file));
    expect(out).toContain('service/nginx created');
    expect(out).toContain('statefulset.apps/web created');
    expect(ok(await k('rollout', 'status', 'sts/web', '--timeout=60s'))).toContain('partitioned roll out complete: 2 new pods have been updated...');
    const [web0, web1] = (await pods('app=nginx')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    expect([web0?.metadata.name, web1?.metadata.name]).toEqual(['web-0', 'web-1']);
    // web-1 was created only once web-0 was Ready.
    const web0Ready = web0?.status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '';
    expect(Date.parse(web1?.metadata.creationTimestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(web0Ready));
    expect([web0?.spec.hostname, web0?.spec.subdomain]).toEqual(['web-0', 'nginx']);
    expect(ok(await k('get', 'sts', 'web'))).toMatch(/^web\s+2\/2\s+\S+$/m);
    const pvcs = ok(await k('get', 'pvc', '-l', 'app=nginx', '-o', 'name'));
    expect(pvcs.trim().split('\n').sort()).toEqual(['persistentvolumeclaim/www-web-0', 'persistentvolumeclaim/www-web-1']);

    expect(ok(await k('scale', 'sts', 'web', '--replicas=5'))).toContain('statefulset.apps/web scaled');
    await waitFor('5 Ready pods', async () => (await pods('app=nginx')).filter(ready).length === 5, 60_000, 300);
    const created = (await pods('app=nginx')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map((p) => Date.parse(p.metadata.creationTimestamp));
    expect([...created].sort((a, b) => a - b)).toEqual(created);

    ok(await k('patch', 'sts', 'web', '-p', '{"spec":{"replicas":3}}'));
    await waitFor('3 pods', async () => (await pods('app=nginx')).length === 3, 60_000, 300);
    expect((await pods('app=nginx')).map((p) => p.metadata.name).sort()).toEqual(['web-0', 'web-1', 'web-2']);
    const events = await lab.kubectlJson<{ items: { reason: string; message: string; metadata: { resourceVersion: string } }[] }>('get', 'events', '--field-selector', 'involvedObject.name=web');
    const deletes = events.items.filter((e) => e.reason === 'SuccessfulDelete').sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion)).map((e) => e.message);
    expect(deletes).toEqual(['delete Pod web-4 in StatefulSet web successful', 'delete Pod web-3 in StatefulSet web successful']);
    // The claims stay (whenScaled: Retain).
    expect(ok(await k('get', 'pvc', 'www-web-4', '-o', 'name')).trim()).toBe('persistentvolumeclaim/www-web-4');

    ok(await k('patch', 'statefulset', 'web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}'));
    ok(await k('patch', 'statefulset', 'web', '--type=json', '-p', '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value":"registry.k8s.io/nginx-slim:0.24"}]'));
    expect(ok(await k('rollout', 'status', 'sts/web', '--timeout=60s'))).toContain('partitioned roll out complete: 1 new pods have been updated...');
    const image = async (n: string) => (await lab.kubectlJson<PodLite>('get', 'pod', n)).spec.containers[0]?.image;
    expect([await image('web-0'), await image('web-1'), await image('web-2')]).toEqual(['registry.k8s.io/nginx-slim:0.21', 'registry.k8s.io/nginx-slim:0.21', 'registry.k8s.io/nginx-slim:0.24']);
    ok(await k('patch', 'statefulset', 'web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}}}}'));
    // The defaulted rollingUpdate (partition 0) makes kubectl report a partitioned rollout, as against Kubernetes.
    expect(ok(await k('rollout', 'status', 'sts/web', '--timeout=60s'))).toContain('partitioned roll out complete: 3 new pods have been updated...');
    expect([await image('web-0'), await image('web-1'), await image('web-2')]).toEqual(Array(3).fill('registry.k8s.io/nginx-slim:0.24'));
    expect(ok(await k('rollout', 'history', 'sts/web'))).toMatch(/^2\s+<none>$/m);
  }, 150_000);

  it('the controller-manager leader killed mid-rollout: no pod outside web-0..2, none skipped, the rollout completes; rollout undo', async () => {
    const holder = ok(await k('get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}')).trim();
    const leader = holder.split('_')[0] ?? '';
    expect(leader).toMatch(/^controller-manager-\d$/);
    const seen: string[][] = [];
    let watching = true;
    // The pod names at each poll; a short gap between kubectl runs leaves the CPU to the rollout.
    const watcher = (async () => {
      while (watching) {
        const names = (await pods('app=nginx').catch(() => [])).map((p) => p.metadata.name).sort();
        if (names.length > 0) seen.push(names);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    ok(await k('set', 'image', 'sts/web', 'nginx=registry.k8s.io/nginx-slim:0.26'));
    // At least one pod updated (a poll on a busy machine can miss the moment there was exactly one).
    await waitFor('the rollout under way', async () => ((await lab.kubectlJson<{ status: { updatedReplicas?: number } }>('get', 'sts', 'web')).status.updatedReplicas ?? 0) >= 1, 60_000, 100);
    expect((await lab.kemu('kill', leader)).code).toBe(0);
    expect(ok(await k('rollout', 'status', 'sts/web', '--timeout=60s'))).toContain('partitioned roll out complete: 3 new pods have been updated...');
    await waitFor('the update revision current', async () => {
      const st = (await lab.kubectlJson<{ status: { currentRevision?: string; updateRevision?: string } }>('get', 'sts', 'web')).status;
      return st.currentRevision !== undefined && st.currentRevision === st.updateRevision;
    }, 30_000, 300);
    watching = false;
    await watcher;
    const images = await Promise.all(['web-0', 'web-1', 'web-2'].map(async (n) => (await lab.kubectlJson<PodLite>('get', 'pod', n)).spec.containers[0]?.image));
    expect(images).toEqual(Array(3).fill('registry.k8s.io/nginx-slim:0.26'));
    for (const names of seen) expect(names.every((n) => ['web-0', 'web-1', 'web-2'].includes(n))).toBe(true);
    // At most one ordinal is missing at any moment (maxUnavailable 1) and never web-0 while web-2 is down.
    for (const names of seen) expect(names.length).toBeGreaterThanOrEqual(2);
    expect((await pods('app=nginx')).map((p) => p.metadata.name).sort()).toEqual(['web-0', 'web-1', 'web-2']);

    // kubectl computes the undo from the ControllerRevisions and patches the template back.
    expect(ok(await k('rollout', 'undo', 'sts/web'))).toContain('statefulset.apps/web rolled back');
    expect(ok(await k('rollout', 'status', 'sts/web', '--timeout=60s'))).toContain('partitioned roll out complete: 3 new pods have been updated...');
    await waitFor('nginx-slim:0.24 back on every pod', async () => {
      const im = (await pods('app=nginx')).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.spec.containers[0]?.image);
      return im.length === 3 && im.every((i) => i === 'registry.k8s.io/nginx-slim:0.24');
    }, 60_000, 300);
  }, 150_000);

  it('the pod network: a NodePort on each node answers from all three replicas, wherever they run', async () => {
    const file = path.join(lab.dir, 'hostnames.yaml');
    writeFileSync(file, HOSTNAMES);
    ok(await k('apply', '-f', file));
    ok(await k('rollout', 'status', 'deployment/hostnames', '--timeout=90s'));
    const names = (await pods('app=hostnames')).map((p) => p.metadata.name).sort();
    expect((await pods('app=hostnames')).map((p) => p.spec.nodeName).sort()).toEqual(['worker-0', 'worker-1', 'worker-2']);
    const nodePort = Number(ok(await k('get', 'svc', 'hostnames', '-o', 'jsonpath={.spec.ports[0].nodePort}')).trim());
    const ips = ok(await k('get', 'nodes', '-o', 'jsonpath={.items[*].status.addresses[?(@.type=="InternalIP")].address}')).trim().split(/\s+/);
    expect(ips).toHaveLength(3);
    for (const ip of ips) {
      // Each request on a new connection, as curl makes: kube-proxy balances connections, not requests.
      const seen = new Set<string>();
      await waitFor(`all three pods through ${ip}:${nodePort}`, async () => {
        const res = await fetch(`http://${ip}:${nodePort}/`, { headers: { connection: 'close' } }).catch(() => undefined);
        if (res?.ok) seen.add(await res.text());
        return seen.size === 3;
      }, 30_000, 50);
      expect([...seen].sort()).toEqual(names);
    }
    ok(await k('delete', '-f', file));
  }, 150_000);
});

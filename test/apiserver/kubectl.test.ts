// The real kubectl against one kube-apiserver process (fresh HOME, so discovery is fetched anew).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './cluster.ts';
import { startKubectlCluster, type KubectlCluster } from './kubectl-cluster.ts';
import { startWebhookServer } from '../../packages/apiserver/src/testing/webhook-server.ts';
import { startAggregatedServer, WARDLE_GROUP } from '../../packages/apiserver/src/testing/aggregated-server.ts';
import { waitFor } from '@kemu/base/testing/processes';

let k: KubectlCluster;

beforeAll(async () => {
  k = await startKubectlCluster();
  const pod = { metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } };
  expect((await api(`${k.A.url}/api/v1/namespaces/default/pods`, 'POST', pod)).status).toBe(201);
}, 60_000);
afterAll(async () => k?.stop());

const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx}]
`;

describe('kubectl', () => {
  it('get namespaces, pods -A, -o wide, -o yaml', async () => {
    const ns = await k.kubectl('get', 'namespaces');
    expect(ns.code).toBe(0);
    for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) expect(ns.stdout).toContain(n);
    const all = await k.kubectl('get', 'pods', '-A');
    expect(all.stdout).toMatch(/NAMESPACE\s+NAME/);
    expect(all.stdout).toMatch(/default\s+web-1/);
    const wide = await k.kubectl('get', 'pods', '-o', 'wide');
    expect(wide.code).toBe(0);
    expect(wide.stdout).toContain('web-1');
    const yaml = await k.kubectl('get', 'pod', 'web-1', '-o', 'yaml');
    expect(yaml.stdout).toContain('name: web-1');
    expect(yaml.stdout).toContain('nodeName: node-1');
  });

  it('api-resources and get --raw /readyz', async () => {
    const r = await k.kubectl('api-resources');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/);
    expect(r.stdout).toMatch(/pods\s+po\s+v1\s+true\s+Pod/);
    const raw = await k.kubectl('get', '--raw', '/readyz');
    expect(raw.stdout.trim()).toBe('ok');
  });

  it('create -f, apply -f twice, label, annotate, scale, describe, delete', async () => {
    const cmFile = path.join(k.dir, 'cm.yaml');
    writeFileSync(cmFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\ndata:\n  k: v\n');
    const c = await k.kubectl('create', '-f', cmFile);
    expect(c.stdout.trim()).toBe('configmap/from-file created');
    const depFile = path.join(k.dir, 'dep.yaml');
    writeFileSync(depFile, deployment(2));
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web created');
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web unchanged');
    writeFileSync(depFile, deployment(3));
    expect((await k.kubectl('apply', '-f', depFile)).stdout.trim()).toBe('deployment.apps/web configured');
    expect((await k.kubectl('label', 'deployment', 'web', 'tier=front')).stdout.trim()).toBe('deployment.apps/web labeled');
    expect((await k.kubectl('annotate', 'deployment', 'web', 'note=x')).stdout.trim()).toBe('deployment.apps/web annotated');
    expect((await k.kubectl('scale', 'deployment', 'web', '--replicas=5')).stdout.trim()).toBe('deployment.apps/web scaled');
    const d = await api(`${k.A.url}/apis/apps/v1/namespaces/default/deployments/web`, 'GET');
    expect((d.body.spec as { replicas: number }).replicas).toBe(5);
    expect(d.body.metadata.labels).toMatchObject({ app: 'web', tier: 'front' });
    expect(d.body.metadata.generation).toBe(3);
    const desc = await k.kubectl('describe', 'deployment', 'web');
    expect(desc.code).toBe(0);
    expect(desc.stdout).toMatch(/Replicas:\s+5 desired/);
    expect((await k.kubectl('delete', 'configmap', 'from-file')).stdout.trim()).toBe('configmap "from-file" deleted');
    expect((await k.kubectl('delete', '-f', depFile)).stdout.trim()).toBe('deployment.apps "web" deleted');
    const gone = await k.kubectl('get', 'deployment', 'web');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('Error from server (NotFound): deployments.apps "web" not found');
  });

  it('autoscale a Deployment (the HPA walkthrough step), get hpa and describe hpa', async () => {
    const depFile = path.join(k.dir, 'php-apache.yaml');
    writeFileSync(depFile, deployment(1).replaceAll('web', 'php-apache'));
    expect((await k.kubectl('apply', '-f', depFile)).code).toBe(0);
    const a = await k.kubectl('autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10');
    expect(a.stderr).toBe('');
    expect(a.stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/php-apache autoscaled');
    const g = await k.kubectl('get', 'hpa');
    expect(g.stdout).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n/);
    expect(g.stdout).toMatch(/\nphp-apache\s+Deployment\/php-apache\s+cpu: <unknown>\/50%\s+1\s+10\s+0\s+\d+s\n/);
    const v2 = await api(`${k.A.url}/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/php-apache`, 'GET');
    expect((v2.body.spec as { metrics: unknown }).metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    // In the `all` category once, under its preferred version.
    const all = await k.kubectl('get', 'all');
    expect(all.stdout.match(/^horizontalpodautoscaler\.autoscaling\/php-apache\s/gm)).toHaveLength(1);
    const explain = await k.kubectl('explain', 'hpa.spec.behavior');
    expect(explain.stdout).toMatch(/^GROUP:\s+autoscaling\nKIND:\s+HorizontalPodAutoscaler\nVERSION:\s+v2\n/);
    expect(explain.stdout).toMatch(/scaleDown\s+<HPAScalingRules>/);
    const d = await k.kubectl('describe', 'hpa', 'php-apache');
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/Reference:\s+Deployment\/php-apache/);
    expect(d.stdout).toMatch(/Min replicas:\s+1/);
    expect(d.stdout).toMatch(/Max replicas:\s+10/);
    const bad = await k.kubectl('autoscale', 'deployment', 'php-apache', '--name=bad', '--min=0', '--max=1', '--cpu-percent=0');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('The HorizontalPodAutoscaler "bad" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0');
    expect((await k.kubectl('delete', 'hpa', 'php-apache')).stdout.trim()).toBe('horizontalpodautoscaler.autoscaling "php-apache" deleted');
    expect((await k.kubectl('delete', '-f', depFile)).code).toBe(0);
  });

  it('get -w prints rows for new objects as they come', async () => {
    expect((await api(`${k.A.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'pre' } })).status).toBe(201);
    const child = spawn('kubectl', ['get', 'configmaps', '-w'], { env: k.env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 20_000;
      while (!out.includes('pre') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('NAME');
      expect((await api(`${k.A.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'watched' } })).status).toBe(201);
      while (!out.includes('watched') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('watched');
      expect(out.match(/NAME/g)?.length).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the kubernetes.io ValidatingAdmissionPolicy example: get columns, and a Deployment of 6 replicas denied', async () => {
    const file = fileURLToPath(new URL('../support/vap-example.yaml', import.meta.url));
    const applied = await k.kubectl('apply', '-f', file);
    expect(applied.stdout.trim().split('\n')).toEqual([
      'namespace/vap-test created',
      'validatingadmissionpolicy.admissionregistration.k8s.io/demo-policy.example.com created',
      'validatingadmissionpolicybinding.admissionregistration.k8s.io/demo-binding-test.example.com created',
    ]);
    const pols = await k.kubectl('get', 'validatingadmissionpolicies');
    expect(pols.stdout).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\ndemo-policy\.example\.com\s+1\s+<unset>\s+\d+s\n$/);
    const binds = await k.kubectl('get', 'validatingadmissionpolicybindings');
    expect(binds.stdout).toMatch(/^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\ndemo-binding-test\.example\.com\s+demo-policy\.example\.com\s+<unset>\s+\d+s\n$/);
    const dep = path.join(k.dir, 'vap-dep.yaml');
    writeFileSync(dep, deployment(6).replace('name: web', 'name: nginx\n  namespace: vap-test'));
    const deadline = Date.now() + 20_000;
    let res = await k.kubectl('create', '-f', dep, '--dry-run=server');
    while (res.code === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      res = await k.kubectl('create', '-f', dep, '--dry-run=server');
    }
    expect(res.stderr.trim()).toBe(
      `The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    const del = await k.kubectl('delete', 'validatingadmissionpolicybinding', 'demo-binding-test.example.com');
    expect(del.stdout.trim()).toBe('validatingadmissionpolicybinding.admissionregistration.k8s.io "demo-binding-test.example.com" deleted');
    expect((await k.kubectl('delete', 'validatingadmissionpolicy', 'demo-policy.example.com')).code).toBe(0);
  });

  it('deletes a bound pod gracefully: kubectl waits until it is gone', async () => {
    const del = k.kubectl('delete', 'pod', 'web-1', '--wait=true');
    // The "kubelet": once the pod is marked, finish it with grace 0.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const p = await api(`${k.A.url}/api/v1/namespaces/default/pods/web-1`, 'GET');
      if (p.body.metadata.deletionTimestamp) break;
      if (Date.now() > deadline) throw new Error('pod never marked for deletion');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await api(`${k.A.url}/api/v1/namespaces/default/pods/web-1`, 'DELETE', { gracePeriodSeconds: 0 })).status).toBe(200);
    const res = await del;
    expect(res.stdout.trim()).toBe('pod "web-1" deleted');
  });

  it('the kubernetes.io CronTab walkthrough: apply the CRD and an object, get by plural and short name, columns, delete', async () => {
    const crdFile = path.join(k.dir, 'resourcedefinition.yaml');
    writeFileSync(crdFile, CRONTAB_CRD);
    expect((await k.kubectl('apply', '-f', crdFile)).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    const crFile = path.join(k.dir, 'my-crontab.yaml');
    writeFileSync(crFile, 'apiVersion: "stable.example.com/v1"\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\nspec:\n  cronSpec: "* * * * */5"\n  image: my-awesome-cron-image\n');
    // The CRD is served once its names are accepted and it is Established, moments after the create.
    let applied = await k.kubectl('apply', '-f', crFile);
    for (let i = 0; i < 20 && applied.stderr.includes('resource mapping not found'); i++) applied = await k.kubectl('apply', '-f', crFile);
    expect(applied.stdout.trim(), applied.stderr).toBe('crontab.stable.example.com/my-new-cron-object created');
    const get = await k.kubectl('get', 'crontab');
    expect(get.stdout).toMatch(/^NAME\s+AGE\nmy-new-cron-object\s+\d+s\n$/);
    const short = await k.kubectl('get', 'ct', '-o', 'yaml');
    expect(short.stdout).toContain('cronSpec: \'* * * * */5\'');
    expect(short.stdout).toContain('image: my-awesome-cron-image');
    const crds = await k.kubectl('get', 'crd');
    expect(crds.stdout).toMatch(/NAME\s+CREATED AT\ncrontabs\.stable\.example\.com\s+\d{4}-\d\d-\d\dT/);
    expect((await k.kubectl('delete', 'ct', 'my-new-cron-object')).stdout.trim()).toBe('crontab.stable.example.com "my-new-cron-object" deleted');
    expect((await k.kubectl('delete', '-f', crdFile)).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
    const gone = await k.kubectl('get', 'crontabs');
    // The walkthrough's validation section: the same CRD with a pattern and bounds refuses a bad object.
    writeFileSync(crdFile, CRONTAB_CRD.replace('                cronSpec:\n                  type: string\n', () => "                cronSpec:\n                  type: string\n                  pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'\n").replace('                  type: integer\n', () => '                  type: integer\n                  minimum: 1\n                  maximum: 10\n')
      // The scale subresource and a CEL rule, from the same page's later sections.
      .replace('      storage: true\n', () => '      storage: true\n      subresources:\n        scale:\n          specReplicasPath: .spec.replicas\n          statusReplicasPath: .status.replicas\n')
      .replace('            spec:\n              type: object\n', () => "            spec:\n              type: object\n              x-kubernetes-validations:\n                - rule: '!has(self.replicas) || self.replicas != 7'\n                  message: replicas must not be 7\n"));
    const recreated = await k.kubectl('apply', '-f', crdFile);
    expect(recreated.stdout.trim(), recreated.stderr).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    writeFileSync(crFile, 'apiVersion: "stable.example.com/v1"\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\nspec:\n  cronSpec: "* * * *"\n  image: my-awesome-cron-image\n  replicas: 15\n');
    let invalid = await k.kubectl('apply', '-f', crFile);
    for (let i = 0; i < 20 && invalid.stderr.includes('resource mapping not found'); i++) invalid = await k.kubectl('apply', '-f', crFile);
    expect(invalid.stderr).toContain(
      `The CronTab "my-new-cron-object" is invalid: \n* spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'\n* spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`,
    );
    writeFileSync(crFile, 'apiVersion: "stable.example.com/v1"\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\nspec:\n  cronSpec: "* * * * */5"\n  image: my-awesome-cron-image\n  replicas: 1\n');
    const valid = await k.kubectl('apply', '-f', crFile);
    expect(valid.stdout.trim(), valid.stderr).toBe('crontab.stable.example.com/my-new-cron-object created');
    const scaled = await k.kubectl('scale', 'crontab/my-new-cron-object', '--replicas=3');
    expect(scaled.stdout.trim(), scaled.stderr).toBe('crontab.stable.example.com/my-new-cron-object scaled');
    expect((await k.kubectl('get', 'ct', 'my-new-cron-object', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('3');
    const refused = await k.kubectl('scale', 'crontab/my-new-cron-object', '--replicas=7');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec: Invalid value: "object": replicas must not be 7');
    expect((await k.kubectl('delete', '-f', crdFile)).code).toBe(0);
    // kubectl's cached discovery may still name the resource: then the list itself is a 404.
    expect(gone.stderr).toMatch(/the server doesn't have a resource type "crontabs"|Unable to list "stable\.example\.com\/v1, Resource=crontabs": the server could not find the requested resource/);
  });

  it('a validating webhook on the machine: get validatingwebhookconfigurations, a create it denies, its warning', async () => {
    const wh = await startWebhookServer((r) =>
      r.name === 'refused' ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'refused by the test webhook' } } : { allowed: true, warnings: ['seen by the test webhook'] },
    );
    const file = path.join(k.dir, 'webhook.yaml');
    writeFileSync(
      file,
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny-test}
webhooks:
- name: deny.test.example.com
  clientConfig: {url: "${wh.url('/validate')}", caBundle: ${wh.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: hooked}}
  sideEffects: None
  admissionReviewVersions: [v1]
`,
    );
    try {
      expect((await k.kubectl('apply', '-f', file)).stdout.trim()).toBe('validatingwebhookconfiguration.admissionregistration.k8s.io/deny-test created');
      const get = await k.kubectl('get', 'validatingwebhookconfigurations');
      expect(get.stdout).toMatch(/^NAME\s+WEBHOOKS\s+AGE\ndeny-test\s+1\s+\d+s\n$/);
      expect((await k.kubectl('create', 'namespace', 'hooked')).code).toBe(0);
      const refused = await k.kubectl('create', 'configmap', 'refused', '-n', 'hooked');
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe('error: failed to create configmap: admission webhook "deny.test.example.com" denied the request: refused by the test webhook');
      const allowed = await k.kubectl('create', 'configmap', 'allowed', '-n', 'hooked');
      expect(allowed.stdout.trim()).toBe('configmap/allowed created');
      expect(allowed.stderr.trim()).toBe('Warning: seen by the test webhook');
    } finally {
      await k.kubectl('delete', '-f', file);
      await wh.close();
    }
  });

  it('an aggregated API server behind a selector-less Service: get apiservices, get flunders through it, explain them', async () => {
    const stub = await startAggregatedServer({ service: { name: 'wardle-api', namespace: 'default' } });
    const base = `${k.A.url}/api/v1/namespaces/default`;
    const apiService = `${k.A.url}/apis/apiregistration.k8s.io/v1/apiservices`;
    try {
      expect((await api(`${base}/services`, 'POST', { metadata: { name: 'wardle-api' }, spec: { ports: [{ name: 'https', port: 443, targetPort: stub.port }] } })).status).toBe(201);
      expect((await api(`${base}/endpoints`, 'POST', { metadata: { name: 'wardle-api' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: stub.port }] }] })).status).toBe(201);
      const spec = { group: WARDLE_GROUP, version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, caBundle: stub.caBundle, service: { namespace: 'default', name: 'wardle-api' } };
      expect((await api(apiService, 'POST', { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `v1alpha1.${WARDLE_GROUP}` }, spec })).status).toBe(201);
      const listed = await waitFor('the APIService Available', async () => {
        const r = await k.kubectl('get', 'apiservices');
        return /\nv1alpha1\.wardle\.example\.com\s+default\/wardle-api\s+True\s+\d+s\n/.test(r.stdout) ? r.stdout : undefined;
      }, 30_000, 200);
      expect(listed).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
      expect(listed).toMatch(/\nv1\.apps\s+Local\s+True\s+/);
      const created = await api(`${k.A.url}/apis/${WARDLE_GROUP}/v1alpha1/namespaces/default/flunders`, 'POST', { apiVersion: `${WARDLE_GROUP}/v1alpha1`, kind: 'Flunder', metadata: { name: 'my-flunder' } });
      expect(created.status).toBe(201);
      const flunders = await waitFor('kubectl get flunders', async () => {
        const r = await k.kubectl('get', 'flunders');
        return r.code === 0 ? r.stdout : undefined;
      }, 30_000, 200);
      expect(flunders).toMatch(/^NAME\s+AGE\nmy-flunder\s+1m\n$/);
      expect((await k.kubectl('get', 'fl', 'my-flunder', '-o', 'jsonpath={.kind}')).stdout).toBe('Flunder');
      expect((await k.kubectl('api-resources', `--api-group=${WARDLE_GROUP}`)).stdout).toMatch(/\nflunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder\n/);
      // The aggregated server's OpenAPI, merged by the aggregator, explains its kind.
      const explained = await waitFor('kubectl explain flunders', async () => {
        const r = await k.kubectl('explain', 'flunders.spec');
        return r.code === 0 ? r.stdout : undefined;
      }, 30_000, 300);
      expect(explained).toMatch(/^GROUP:\s+wardle\.example\.com\nKIND:\s+Flunder\nVERSION:\s+v1alpha1\n/);
      expect(explained).toMatch(/\n\s+reference\s+<string>\n\s+A name of another flunder or fischer\./);
    } finally {
      await api(`${apiService}/v1alpha1.${WARDLE_GROUP}`, 'DELETE');
      await api(`${base}/services/wardle-api`, 'DELETE');
      await stub.close();
    }
  }, 60_000);
});

/** The CRD of https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/, as written. */
const CRONTAB_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  # name must match the spec fields below, and be in the form: <plural>.<group>
  name: crontabs.stable.example.com
spec:
  # group name to use for REST API: /apis/<group>/<version>
  group: stable.example.com
  # list of versions supported by this CustomResourceDefinition
  versions:
    - name: v1
      # Each version can be enabled/disabled by Served flag.
      served: true
      # One and only one version must be marked as the storage version.
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                cronSpec:
                  type: string
                image:
                  type: string
                replicas:
                  type: integer
  # either Namespaced or Cluster
  scope: Namespaced
  names:
    # plural name to be used in the URL: /apis/<group>/<version>/<plural>
    plural: crontabs
    # singular name to be used as an alias on the CLI and for display
    singular: crontab
    # kind is normally the CamelCase singular type. Used for display on the resource output.
    kind: CronTab
    # shortNames allow shorter string to match your resource on the CLI
    shortNames:
    - ct
`;

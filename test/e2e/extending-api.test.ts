// Extending the API on the three-replica lab: a CRD, a conversion webhook, admission webhooks and policies and an
// aggregated API server, each created through one kube-apiserver replica and used through another, with the real
// kubectl aimed at one replica at a time (a copy of the lab's kubeconfig whose server is that replica's own
// https://<prefix>.1N:6443, which its serving certificate names). Only apiservers run: nothing here needs a
// controller, a scheduler or a node.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { missing, hasKubectl, run, startLab, type Lab, type RunResult } from '../lab/lab.ts';
import { cronTabConverter, startConversionWebhookServer, startWebhookServer } from '../../packages/apiserver/src/testing/webhook-server.ts';
import { startAggregatedServer, WARDLE_GROUP } from '../../packages/apiserver/src/testing/aggregated-server.ts';

const skip = missing('apiserver') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/extending-api.test.ts: ${skip}`);

let lab: Lab;
let kubeconfigs: string[] = [];

/** kubectl against replica i only; cacheDir, when given, replaces kubectl's discovery cache (a fresh one sees the server as it is now). */
function kc(i: number, args: string[], cacheDir?: string): Promise<RunResult> {
  const cache = cacheDir ? [`--cache-dir=${cacheDir}`] : [];
  return run('kubectl', [`--kubeconfig=${kubeconfigs[i]}`, ...cache, ...args], { HOME: lab.dir });
}

/** Writes a manifest into the lab's dir and returns its path. */
function manifest(name: string, text: string): string {
  const file = path.join(lab.dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Retries a kubectl command until pass(r) (a replica may still be loading what another just created). */
async function until(i: number, args: string[], pass: (r: RunResult) => boolean, what: string): Promise<RunResult> {
  let last: RunResult | undefined;
  try {
    return await waitFor(what, async () => {
      last = await kc(i, args);
      return pass(last) ? last : undefined;
    }, 30_000, 100);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last: ${JSON.stringify(last)}`);
  }
}

beforeAll(async () => {
  if (skip) return;
  lab = await startLab({ apiservers: 3, controllerManagers: 0, schedulers: 0, workers: 0 });
  await lab.waitRunning();
  const text = fs.readFileSync(lab.kubeconfig, 'utf8');
  kubeconfigs = [0, 1, 2].map((i) => {
    const file = path.join(lab.dir, `kubeconfig-apiserver-${i}`);
    fs.writeFileSync(file, text.replace(lab.server, lab.url(`apiserver-${i}`)));
    return file;
  });
  expect(fs.readFileSync(kubeconfigs[2] ?? '', 'utf8')).toContain(':6443');
}, 120_000);

afterAll(async () => {
  await lab?.down();
}, 60_000);

const CRONTAB_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
    - name: v1
      served: true
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
                  pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
                image:
                  type: string
                replicas:
                  type: integer
                  minimum: 1
                  maximum: 10
      additionalPrinterColumns:
      - name: Spec
        type: string
        description: The cron spec defining the interval a CronJob is run
        jsonPath: .spec.cronSpec
      - name: Replicas
        type: integer
        description: The number of jobs launched by the CronJob
        jsonPath: .spec.replicas
      - name: Age
        type: date
        jsonPath: .metadata.creationTimestamp
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
`;

describe.skipIf(skip)('extending the API across three apiserver replicas', () => {
  it('a CRD applied through replica 0 is served by 1 and 2; objects cross replicas; deleting it removes them everywhere', async () => {
    const crd = manifest('crontab-crd.yaml', CRONTAB_CRD);
    const applied = await kc(0, ['apply', '-f', crd]);
    expect(applied.stdout.trim(), applied.stderr).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    const established = await until(0, ['wait', '--for=condition=Established', '--timeout=20s', 'crd/crontabs.stable.example.com'], (r) => r.code === 0, 'Established');
    expect(established.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met');
    const t0 = Date.now();
    for (const i of [1, 2]) {
      const res = await until(i, ['api-resources', '--api-group=stable.example.com'], (r) => r.stdout.includes('crontabs'), `replica ${i} discovery`);
      expect(res.stdout).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\ncrontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab\n$/);
      const empty = await until(i, ['get', 'ct'], (r) => r.code === 0, `kubectl get ct on replica ${i}`);
      expect(empty.stderr.trim()).toBe('No resources found in default namespace.');
    }
    // Served everywhere within a second or two of being Established (more allowed on a loaded machine).
    expect(Date.now() - t0).toBeLessThan(10_000);

    const cr = manifest('my-crontab.yaml', 'apiVersion: "stable.example.com/v1"\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\nspec:\n  cronSpec: "* * * * */5"\n  image: my-awesome-cron-image\n  replicas: 2\n');
    const created = await kc(1, ['apply', '-f', cr]);
    expect(created.stdout.trim(), created.stderr).toBe('crontab.stable.example.com/my-new-cron-object created');
    const got = await kc(2, ['get', 'ct']);
    expect(got.stdout, got.stderr).toMatch(/^NAME\s+SPEC\s+REPLICAS\s+AGE\nmy-new-cron-object\s+\* \* \* \* \*\/5\s+2\s+\d+s\n$/);

    const bad = manifest('bad-crontab.yaml', 'apiVersion: "stable.example.com/v1"\nkind: CronTab\nmetadata:\n  name: bad\nspec:\n  cronSpec: "* * * *"\n  replicas: 15\n');
    const refused = await kc(2, ['apply', '-f', bad]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `The CronTab "bad" is invalid: \n* spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'\n* spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`,
    );

    const deleted = await kc(0, ['delete', '-f', crd]);
    expect(deleted.stdout.trim(), deleted.stderr).toBe('customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
    // A fresh discovery cache: replica 2 no longer knows the type at all.
    const fresh = path.join(lab.dir, 'cache-after-delete');
    const gone = await waitFor('replica 2 forgets crontabs', async () => {
      const r = await kc(2, ['get', 'crontabs'], fresh);
      return r.stderr.includes("doesn't have a resource type") ? r : undefined;
    }, 30_000, 100);
    expect(gone.stderr.trim()).toBe('error: the server doesn\'t have a resource type "crontabs"');
    expect(gone.code).toBe(1);
    // The objects went with it: the CRD created again starts empty.
    expect((await kc(1, ['apply', '-f', crd])).code).toBe(0);
    const again = await until(1, ['get', 'ct'], (r) => r.code === 0, 'recreated CRD served on replica 1');
    expect(again.stderr.trim()).toBe('No resources found in default namespace.');
    expect((await kc(1, ['delete', '-f', crd])).code).toBe(0);
  }, 90_000);

  it('a two-version CRD with Webhook conversion: created as v1beta1 through replica 0, read as v1 through 2, listed through 1', async () => {
    const conv = await startConversionWebhookServer(cronTabConverter, { service: { name: 'conv', namespace: 'default' } });
    const crd = (clientConfig: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.conv.example.com
spec:
  group: conv.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
  - name: v1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {${clientConfig}, caBundle: ${conv.caBundle}}
`;
    const file = manifest('conv-crd.yaml', crd(`url: "${conv.url('/convert')}"`));
    try {
      expect((await kc(0, ['apply', '-f', file])).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.conv.example.com created');
      await until(0, ['wait', '--for=condition=Established', '--timeout=20s', 'crd/crontabs.conv.example.com'], (r) => r.code === 0, 'Established');
      const obj = manifest('conv-obj.yaml', 'apiVersion: conv.example.com/v1beta1\nkind: CronTab\nmetadata: {name: old-style}\nspec: {cronSpec: "*/5 * * * *", image: busybox}\n');
      const created = await until(0, ['apply', '-f', obj], (r) => r.code === 0, 'create as v1beta1 on replica 0');
      expect(created.stdout.trim()).toBe('crontab.conv.example.com/old-style created');
      const asV1 = await until(2, ['get', 'crontabs.v1.conv.example.com', 'old-style', '-o', 'json'], (r) => r.code === 0, 'get as v1 on replica 2');
      const v1 = JSON.parse(asV1.stdout) as { apiVersion: string; spec: Record<string, unknown> };
      expect(v1.apiVersion).toBe('conv.example.com/v1');
      expect(v1.spec).toEqual({ schedule: { expression: '*/5 * * * *' }, image: 'busybox' });
      expect(conv.requests.some((r) => r.request.desiredAPIVersion === 'conv.example.com/v1')).toBe(true);
      const listed = await until(1, ['get', 'crontabs.v1.conv.example.com', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.apiVersion} {.spec.schedule.expression}{"\\n"}{end}'], (r) => r.code === 0, 'list as v1 on replica 1');
      expect(listed.stdout).toBe('old-style conv.example.com/v1 */5 * * * *\n');

      // The same converter reached through a selector-less Service whose Endpoints name 127.0.0.1.
      const svc = manifest('conv-svc.yaml', `apiVersion: v1
kind: Service
metadata: {name: conv}
spec:
  ports: [{name: https, port: 443, targetPort: ${conv.port}}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: conv}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: ${conv.port}}]
`);
      expect((await kc(1, ['apply', '-f', svc])).code).toBe(0);
      fs.writeFileSync(file, crd('service: {namespace: default, name: conv, path: /via-service}'));
      expect((await kc(0, ['apply', '-f', file])).stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.conv.example.com configured');
      const viaService = await until(2, ['get', 'crontabs.v1.conv.example.com', 'old-style', '-o', 'jsonpath={.spec.schedule.expression}'], (r) => r.code === 0 && conv.requests.some((q) => q.path.startsWith('/via-service')), 'a conversion through the Service');
      expect(viaService.stdout).toBe('*/5 * * * *');
    } finally {
      await kc(0, ['delete', '--ignore-not-found', '-f', file]);
      await conv.close();
    }
  }, 90_000);

  it('a validating webhook and a ValidatingAdmissionPolicy created through one replica deny through another', async () => {
    const wh = await startWebhookServer((r) =>
      r.name === 'refused' ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'refused by the test webhook' } } : { allowed: true },
    );
    const hook = manifest('webhook.yaml', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny-test}
webhooks:
- name: deny.test.example.com
  clientConfig: {url: "${wh.url('/validate')}", caBundle: ${wh.caBundle}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: hooked}}
  sideEffects: None
  admissionReviewVersions: [v1]
`);
    try {
      expect((await kc(0, ['apply', '-f', hook])).stdout.trim()).toBe('validatingwebhookconfiguration.admissionregistration.k8s.io/deny-test created');
      expect((await kc(0, ['create', 'namespace', 'hooked'])).code).toBe(0);
      const refused = await until(2, ['create', 'configmap', 'refused', '-n', 'hooked'], (r) => r.code !== 0, 'the webhook denies on replica 2');
      expect(refused.stderr.trim()).toBe('error: failed to create configmap: admission webhook "deny.test.example.com" denied the request: refused by the test webhook');
      expect((await kc(2, ['create', 'configmap', 'allowed', '-n', 'hooked'])).stdout.trim()).toBe('configmap/allowed created');
    } finally {
      await kc(0, ['delete', '-f', hook]);
      await wh.close();
    }

    const vap = fileURLToPath(new URL('../support/vap-example.yaml', import.meta.url));
    expect((await kc(1, ['apply', '-f', vap])).code).toBe(0);
    const dep = manifest('vap-dep.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: vap-test}
spec:
  replicas: 6
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`);
    const denied = await until(2, ['create', '-f', dep, '--dry-run=server'], (r) => r.code !== 0, 'the policy denies on replica 2');
    expect(denied.stderr.trim()).toBe(
      `The deployments "nginx" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    fs.writeFileSync(dep, fs.readFileSync(dep, 'utf8').replace('replicas: 6', 'replicas: 5'));
    expect((await kc(2, ['create', '-f', dep, '--dry-run=server'])).stdout.trim()).toBe('deployment.apps/nginx created (server dry run)');
  }, 90_000);

  it('an aggregated API server behind a selector-less Service: its APIService made through replica 0 is Available, flunders through 2', async () => {
    const stub = await startAggregatedServer({ service: { name: 'wardle-api', namespace: 'default' } });
    const objs = manifest('wardle.yaml', `apiVersion: v1
kind: Service
metadata: {name: wardle-api}
spec:
  ports: [{name: https, port: 443, targetPort: ${stub.port}}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: wardle-api}
subsets:
- addresses: [{ip: 127.0.0.1}]
  ports: [{name: https, port: ${stub.port}}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.${WARDLE_GROUP}}
spec: {group: ${WARDLE_GROUP}, version: v1alpha1, groupPriorityMinimum: 1000, versionPriority: 15, caBundle: ${stub.caBundle}, service: {namespace: default, name: wardle-api}}
`);
    try {
      expect((await kc(0, ['apply', '-f', objs])).code).toBe(0);
      const available = await until(2, ['get', 'apiservice', `v1alpha1.${WARDLE_GROUP}`], (r) => /\sTrue\s/.test(r.stdout), 'Available on replica 2');
      expect(available.stdout).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE\nv1alpha1\.wardle\.example\.com\s+default\/wardle-api\s+True\s+\d+s\n$/);
      const flunder = manifest('flunder.yaml', `apiVersion: ${WARDLE_GROUP}/v1alpha1\nkind: Flunder\nmetadata: {name: my-flunder}\n`);
      // --validate=false: the stub's OpenAPI v3 paths have no fieldValidation parameter, so kubectl validates on
      // the client from /openapi/v2 as protobuf, which kemu answers 404 (CLIENT-WIRE §3): "failed to download openapi"
      // (on any replica; not a cross-replica matter).
      const created = await until(1, ['create', '--validate=false', '-f', flunder], (r) => r.code === 0, 'create a flunder through replica 1');
      expect(created.stdout.trim()).toBe('flunder.wardle.example.com/my-flunder created');
      const listed = await until(2, ['get', 'flunders'], (r) => r.code === 0, 'kubectl get flunders on replica 2');
      expect(listed.stdout).toMatch(/^NAME\s+AGE\nmy-flunder\s+\S+\n$/);
    } finally {
      await kc(0, ['delete', '--ignore-not-found', '-f', objs]);
      await stub.close();
    }
  }, 90_000);
});

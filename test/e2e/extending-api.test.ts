// Extending the API on the three-replica lab: a CRD, a conversion webhook, admission webhooks and policies and an
// aggregated API server, each created through one kube-apiserver replica and used through another, with the real
// kubectl aimed at one replica at a time (a copy of the lab's kubeconfig whose server is that replica's own
// https://<prefix>.1N:6443, which its serving certificate names). Only apiservers run: nothing here needs a
// controller, a scheduler or a node.
import fs from 'node:fs';
import path from 'node:path';
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
});

// The kubernetes.io HorizontalPodAutoscaler walkthrough as written, against `kemu up`: php-apache's Deployment
// and Service, `kubectl autoscale deployment php-apache --cpu-percent=50 --min=1 --max=10`, `kubectl get hpa`,
// a busybox load generator running wget in a loop → the HPA scales php-apache up; the load generator deleted →
// back to one replica. Only the lab's periods are shorter than a real cluster's (HPA sync 2 s, downscale
// stabilization 5 s, the kubelets' CPU window 3 s) so the whole tour fits in about a minute.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { startLab, missing, hasKubectl, type Lab } from '../lab/lab.ts';
import { ROOT } from '@kemu/kemu';

const skip = missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'skipped: kubectl is not installed');
if (skip) console.warn(`test/e2e/hpa-walkthrough.test.ts: ${skip}`);

const PHP_APACHE = path.join(ROOT, 'deploy/examples/php-apache.yaml');

interface Hpa {
  status?: { currentReplicas?: number; desiredReplicas?: number };
}
interface Deployment {
  spec?: { replicas?: number };
}

describe.skipIf(skip)('HPA walkthrough (kubectl against kemu up)', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({
      apiservers: 1,
      controllerManagers: 1,
      schedulers: 1,
      workers: 2,
      metricsServers: 1,
      imagePullDelay: '100ms',
      extra: ['--horizontal-pod-autoscaler-sync-period=2s', '--horizontal-pod-autoscaler-downscale-stabilization=5s', '--cpu-usage-window=3s'],
    });
    await lab.waitRunning(undefined, 120_000);
  }, 150_000);
  afterAll(async () => {
    await lab?.down();
  }, 60_000);

  it('php-apache scales up under the busybox load generator and back to 1 when it is deleted', async () => {
    const applied = await lab.kubectl('apply', '-f', PHP_APACHE);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('deployment.apps/php-apache created');
    expect(applied.stdout).toContain('service/php-apache created');

    const auto = await lab.kubectl('autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10');
    expect(auto.code, auto.stderr).toBe(0);
    expect(auto.stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/php-apache autoscaled');

    // Idle: the page's `kubectl get hpa` once metrics arrive — MINPODS 1, MAXPODS 10, REPLICAS 1, and TARGETS
    // under 50% (the page shows 0%; an idle emulated container uses a tenth of its request, so 10%).
    const idle = await waitFor('kubectl get hpa showing cpu: N%/50%', async () => {
      const r = await lab.kubectl('get', 'hpa');
      const m = /\nphp-apache\s+Deployment\/php-apache\s+cpu: (\d+)%\/50%\s+1\s+10\s+1\s/.exec(r.stdout);
      return m ? { out: r.stdout, cpu: Number(m[1]) } : undefined;
    }, 60_000, 500);
    expect(idle.cpu).toBeLessThan(50);
    expect(idle.out.split('\n')[0]).toMatch(/^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);

    const load = await lab.kubectl('run', 'load-generator', '--image=busybox:1.28', '--restart=Never', '--', '/bin/sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done');
    expect(load.code, load.stderr).toBe(0);

    // Under load: TARGETS above 50% and more replicas, in the HPA's status and in the Deployment.
    const busy = await waitFor('kubectl get hpa showing REPLICAS > 1', async () => {
      const r = await lab.kubectl('get', 'hpa', 'php-apache', '--no-headers');
      const m = /cpu: (\d+)%\/50%\s+1\s+10\s+(\d+)\s/.exec(r.stdout);
      return m && Number(m[2]) > 1 ? { cpu: Number(m[1]), replicas: Number(m[2]) } : undefined;
    }, 60_000, 500);
    expect(busy.cpu).toBeGreaterThan(50);
    const scaledUp = await lab.kubectlJson<Deployment>('get', 'deployment', 'php-apache');
    expect(scaledUp.spec?.replicas).toBeGreaterThan(1);
    const events = await lab.kubectl('get', 'events', '--field-selector=involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=php-apache');
    expect(events.stdout).toMatch(/SuccessfulRescale\s+horizontalpodautoscaler\/php-apache\s+New size: \d+; reason: cpu resource utilization \(percentage of request\) above target/);

    const del = await lab.kubectl('delete', 'pod', 'load-generator', '--wait=false');
    expect(del.code, del.stderr).toBe(0);
    await waitFor('php-apache back to 1 replica', async () => {
      const hpa = await lab.kubectlJson<Hpa>('get', 'hpa', 'php-apache');
      const d = await lab.kubectlJson<Deployment>('get', 'deployment', 'php-apache');
      return hpa.status?.desiredReplicas === 1 && d.spec?.replicas === 1;
    }, 90_000, 1000);
    const after = await lab.kubectl('get', 'events', '--field-selector=involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=php-apache');
    expect(after.stdout).toMatch(/SuccessfulRescale\s+horizontalpodautoscaler\/php-apache\s+New size: 1; reason: All metrics below target/);
  }, 240_000);
});

// The Events a pod worker records (through a fake recorder): pull → create → start with the kubelet's
// messages and fieldPath, BackOff while a container crash-loops, Killing on deletion.
import { describe, expect, it } from 'vitest';
import { FakeClock, silentLogger } from '@kemu/base';
import type { KubeObject, Pod } from '@kemu/api';
import type { KubeApi } from '../api.ts';
import type { EventSink, EventType } from '../events.ts';
import { TimerQueue } from '../timers.ts';
import { PodWorker, type WorkerHost } from './worker.ts';

interface Recorded {
  kind?: string;
  name?: string;
  uid?: string;
  fieldPath?: string;
  type: EventType;
  reason: string;
  message: string;
}

function setup(pullMs: number, preloaded: string[] = []) {
  const clock = new FakeClock();
  const timers = new TimerQueue(clock);
  const events: Recorded[] = [];
  const sink: EventSink = {
    event(obj: KubeObject, type, reason, message, opts) {
      events.push({ kind: obj.kind, name: obj.metadata.name, uid: obj.metadata.uid, fieldPath: opts?.fieldPath, type, reason, message });
    },
  };
  const client = {
    patch: async () => ({}),
    delete: async () => ({}),
  } as unknown as KubeApi;
  const images = new Set<string>(preloaded);
  let n = 0;
  const host: WorkerHost = {
    client,
    timers,
    clock,
    logger: silentLogger(),
    env: {
      imagePullMs: pullMs,
      hasImage: (i) => images.has(i),
      imagePulled: (i) => void images.add(i),
      imageSize: () => 1234,
      newContainerID: () => `kemu://${++n}`,
    },
    events: sink,
    hostIP: () => '10.0.0.1',
    allocateIP: () => '10.1.0.2',
    releaseIP: () => undefined,
    released: () => undefined,
    closed: () => undefined,
  };
  /** Runs the shared timer until `ms` from now, step by step. */
  const advance = async (ms: number) => {
    const end = clock.now() + ms;
    while (clock.now() < end) {
      await clock.advance(Math.min(100, end - clock.now()));
      timers.runDue();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { clock, timers, events, host, advance };
}

function pod(spec: Pod['spec'], annotations?: Record<string, string>): Pod {
  return { metadata: { name: 'x', namespace: 'default', uid: 'u-1', annotations }, spec: { nodeName: 'n1', ...spec } };
}

describe('pod events', () => {
  it('Pulling, Pulled (with the pull time and size), Created, Started, about spec.containers{web}', async () => {
    const { events, host, advance } = setup(1500);
    const w = new PodWorker(host, pod({ containers: [{ name: 'web', image: 'nginx' }] }));
    w.start();
    await advance(2000);
    expect(events).toEqual([
      { kind: 'Pod', name: 'x', uid: 'u-1', fieldPath: 'spec.containers{web}', type: 'Normal', reason: 'Pulling', message: 'Pulling image "nginx"' },
      {
        kind: 'Pod',
        name: 'x',
        uid: 'u-1',
        fieldPath: 'spec.containers{web}',
        type: 'Normal',
        reason: 'Pulled',
        message: 'Successfully pulled image "nginx" in 1.5s (1.5s including waiting). Image size: 1234 bytes.',
      },
      { kind: 'Pod', name: 'x', uid: 'u-1', fieldPath: 'spec.containers{web}', type: 'Normal', reason: 'Created', message: 'Created container web' },
      { kind: 'Pod', name: 'x', uid: 'u-1', fieldPath: 'spec.containers{web}', type: 'Normal', reason: 'Started', message: 'Started container web' },
    ]);
    w.close();
  });

  it('BackOff when a container crash-loops; the image is then already present', async () => {
    const { events, host, advance } = setup(0, ['busybox']);
    const w = new PodWorker(host, pod({ containers: [{ name: 'web', image: 'busybox', command: ['false'] }] }));
    w.start();
    await advance(12_000);
    const seen = events.map((e) => `${e.type} ${e.reason} ${e.message}`);
    expect(seen.slice(0, 3)).toEqual([
      'Normal Pulled Container image "busybox" already present on machine',
      'Normal Created Created container web',
      'Normal Started Started container web',
    ]);
    // First exit restarts at once; the second waits 10 s.
    expect(seen).toContain('Warning BackOff Back-off restarting failed container web in pod x_default(u-1)');
    const backoff = events.find((e) => e.reason === 'BackOff');
    expect(backoff?.fieldPath).toBe('spec.containers{web}');
    expect(seen.filter((s) => s.includes('Started container web')).length).toBeGreaterThanOrEqual(3);
    w.close();
  });

  it('Killing ("Stopping container web") when the pod is deleted; init containers use spec.initContainers{…}', async () => {
    const { events, host, advance, clock } = setup(0);
    const p = pod({ initContainers: [{ name: 'setup', image: 'busybox', command: ['true'] }], containers: [{ name: 'web', image: 'nginx' }] });
    const w = new PodWorker(host, p);
    w.start();
    await advance(500);
    expect(events.find((e) => e.reason === 'Started' && e.message === 'Started container setup')?.fieldPath).toBe('spec.initContainers{setup}');
    w.update({ ...p, metadata: { ...p.metadata, deletionTimestamp: new Date(clock.now()).toISOString(), deletionGracePeriodSeconds: 30 } });
    await advance(500);
    const kill = events.filter((e) => e.reason === 'Killing');
    expect(kill).toEqual([{ kind: 'Pod', name: 'x', uid: 'u-1', fieldPath: 'spec.containers{web}', type: 'Normal', reason: 'Killing', message: 'Stopping container web' }]);
    w.close();
  });

  it('Unhealthy for each failed probe; Killing "failed liveness probe, will be restarted"; then the restart', async () => {
    const { events, host, advance } = setup(0, ['nginx']);
    const spec = {
      containers: [{
        name: 'web', image: 'nginx', imagePullPolicy: 'IfNotPresent' as const,
        livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 1, failureThreshold: 2 },
        readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 1, failureThreshold: 1 },
      }],
    };
    const w = new PodWorker(host, pod(spec, { 'kemu.dev/liveness-probe-fail-after': '2', 'kemu.dev/readiness-probe-fail-after': '1' }));
    w.start();
    await advance(3500);
    const seen = events.filter((e) => e.reason === 'Unhealthy' || e.reason === 'Killing').map((e) => `${e.type} ${e.reason} ${e.fieldPath} ${e.message}`);
    expect(seen).toEqual([
      'Warning Unhealthy spec.containers{web} Readiness probe failed: dial tcp 10.1.0.2:80: connect: connection refused',
      'Warning Unhealthy spec.containers{web} Liveness probe failed: HTTP probe failed with statuscode: 500',
      'Warning Unhealthy spec.containers{web} Readiness probe failed: dial tcp 10.1.0.2:80: connect: connection refused',
      'Warning Unhealthy spec.containers{web} Liveness probe failed: HTTP probe failed with statuscode: 500',
      'Warning Unhealthy spec.containers{web} Readiness probe failed: dial tcp 10.1.0.2:80: connect: connection refused',
      'Normal Killing spec.containers{web} Container web failed liveness probe, will be restarted',
    ]);
    // Readiness failed at 1, 2 and 3 s, liveness at 2 and 3 s (the second failure kills). The restart: the image
    // is present, the container is created and started again.
    expect(events.filter((e) => e.reason === 'Started')).toHaveLength(2);
    w.close();
  });

  it('imagePullPolicy Always pulls an image already on the node; Never without it reports ErrImageNeverPull', async () => {
    const { events, host, advance } = setup(500, ['nginx']);
    const w = new PodWorker(host, pod({ containers: [{ name: 'web', image: 'nginx', imagePullPolicy: 'Always' }] }));
    w.start();
    await advance(1000);
    expect(events.map((e) => `${e.reason} ${e.message}`).slice(0, 2)).toEqual([
      'Pulling Pulling image "nginx"',
      'Pulled Successfully pulled image "nginx" in 500ms (500ms including waiting). Image size: 1234 bytes.',
    ]);
    w.close();
    events.length = 0;
    const w2 = new PodWorker(host, pod({ containers: [{ name: 'app', image: 'app:v1', imagePullPolicy: 'Never' }] }));
    w2.start();
    await advance(100);
    expect(events.map((e) => `${e.type} ${e.reason} ${e.message}`)).toEqual([
      'Warning ErrImageNeverPull Container image "app:v1" is not present with pull policy of Never',
      'Warning Failed Error: ErrImageNeverPull',
    ]);
    w2.close();
  });
});

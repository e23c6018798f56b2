// The image step with the catalogue: a missing tag fails with ErrImagePull and containerd's message, the
// back-off doubles from 10 s to its 300 s cap with ImagePullBackOff ("Back-off pulling image …: <error>") between,
// the events are the kubelet's; private repositories need credentials; a bad name is InvalidImageName.
import { describe, expect, it } from 'vitest';
import { FakeClock, silentLogger } from '@kemu/base';
import { StatusError, type KubeObject, type Pod, type PodSpec, type Secret } from '@kemu/api';
import type { KubeApi } from '../api.ts';
import type { EventSink } from '../events.ts';
import { ImageCatalog } from '../images/catalog.ts';
import { pullFailure } from '../images/registry.ts';
import { TimerQueue } from '../timers.ts';
import { PodLifecycle, type LifecycleEnv } from './lifecycle.ts';
import { renderStatus } from './status.ts';
import { PodWorker, type WorkerHost } from './worker.ts';

const catalog = new ImageCatalog().add({ repositories: { nginx: { tags: ['1.14.2', '1.16.1'] }, 'acme/private': { tags: ['v1'], private: true } } });
const NOT_FOUND =
  'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.161": failed to resolve reference "docker.io/library/nginx:1.161": docker.io/library/nginx:1.161: not found';

function env(backOff?: { initialMs: number; maxMs: number }): LifecycleEnv {
  const images = new Set<string>();
  let n = 0;
  return {
    imagePullMs: 0,
    hasImage: (i) => images.has(i),
    imagePulled: (i) => void images.add(i),
    newContainerID: () => `kemu://${++n}`,
    pullFailure: (image, auth) => pullFailure(catalog, image, auth),
    ...(backOff ? { imageBackOff: backOff } : {}),
  };
}

const id = { name: 'p', namespace: 'default', uid: 'u1' };
const spec = (image: string, extra: Partial<PodSpec> = {}): PodSpec => ({ containers: [{ name: 'web', image }], ...extra });

/** A lifecycle with its events as "Type Reason Message" lines, and a way to run it to a time. */
function start(image: string, backOff?: { initialMs: number; maxMs: number }) {
  const clock = new FakeClock();
  const events: string[] = [];
  const lc = new PodLifecycle(id, spec(image), undefined, env(backOff), clock.now(), (_c, type, reason, message) => events.push(`${type} ${reason} ${message}`));
  const t0 = clock.now();
  let next = lc.advance(t0);
  /** Advances to t0 + ms, waking the lifecycle whenever it asked to be. */
  const runTo = async (ms: number) => {
    while (next !== undefined && next <= t0 + ms) {
      await clock.advance(next - clock.now());
      next = lc.advance(clock.now());
    }
    await clock.advance(t0 + ms - clock.now());
  };
  const waiting = () => {
    const st = renderStatus({ metadata: { name: 'p' }, spec: spec(image) } as Pod, lc, { now: clock.now(), hostIP: '10.0.0.1' });
    return st.containerStatuses?.[0]?.state?.waiting;
  };
  return { lc, events, runTo, waiting, clock, t0 };
}

describe('a pull the registry refuses', () => {
  it('nginx:1.161: Pulling, Failed with containerd\'s NotFound, Error: ErrImagePull; waiting ErrImagePull with the error', () => {
    const { events, waiting, lc } = start('nginx:1.161');
    expect(events).toEqual(['Normal Pulling Pulling image "nginx:1.161"', `Warning Failed Failed to pull image "nginx:1.161": ${NOT_FOUND}`, 'Warning Failed Error: ErrImagePull']);
    expect(waiting()).toEqual({ reason: 'ErrImagePull', message: NOT_FOUND });
    expect(lc.phase()).toBe('Pending');
  });

  it('then ImagePullBackOff with "Back-off pulling image", pulls again when the back-off ends, doubling to the 300 s cap', async () => {
    const { events, waiting, runTo, lc } = start('nginx:1.161');
    // The pod is synced again every 10 s; at 10 s the first 10 s back-off has just ended: a second pull (20 s).
    await runTo(10_000);
    expect(waiting()?.reason).toBe('ErrImagePull');
    expect(lc.containers[0]?.pullBackOff).toEqual({ at: expect.any(Number), delayMs: 20_000, lastError: `ErrImagePull: ${NOT_FOUND}` });
    events.length = 0;
    await runTo(20_000);
    // v1.32: the waiting message adds the last pull's error to the event's text.
    expect(waiting()).toEqual({ reason: 'ImagePullBackOff', message: `Back-off pulling image "nginx:1.161": ErrImagePull: ${NOT_FOUND}` });
    expect(events).toEqual(['Normal BackOff Back-off pulling image "nginx:1.161"', 'Warning Failed Error: ImagePullBackOff']);
    // Pulls happen at 0, 10, 30, 70, 150, 310, then every 300 s.
    const pullsBy = async (ms: number) => {
      events.length = 0;
      await runTo(ms);
      return events.filter((e) => e.startsWith('Normal Pulling')).length;
    };
    expect(await pullsBy(30_000)).toBe(1);
    expect(await pullsBy(69_000)).toBe(0);
    expect(await pullsBy(70_000)).toBe(1);
    expect(await pullsBy(150_000)).toBe(1);
    expect(await pullsBy(310_000)).toBe(1);
    expect(lc.containers[0]?.pullBackOff?.delayMs).toBe(300_000);
    expect(await pullsBy(600_000)).toBe(0);
    expect(await pullsBy(610_000)).toBe(1);
    expect(lc.containers[0]?.pullBackOff?.delayMs).toBe(300_000);
  });

  it('the back-off durations come from the environment (the kubelet\'s --image-pull-backoff flags)', async () => {
    const { waiting, runTo, events } = start('nginx:1.161', { initialMs: 100, maxMs: 400 });
    await runTo(100);
    await runTo(200);
    expect(waiting()?.reason).toBe('ImagePullBackOff');
    await runTo(5_000);
    // 0, 100, 300, 700, then every 400 ms: the cap.
    expect(events.filter((e) => e.startsWith('Normal Pulling')).length).toBe(4 + Math.floor((5_000 - 700) / 400));
  });

  it('an image the catalogue has pulls as before', () => {
    const { events, lc } = start('nginx:1.16.1');
    expect(events).toEqual(['Normal Pulling Pulling image "nginx:1.16.1"', 'Normal Pulled Successfully pulled image "nginx:1.16.1" in 0s (0s including waiting). Image size: 0 bytes.', 'Normal Created Created container web', 'Normal Started Started container web']);
    expect(lc.phase()).toBe('Running');
  });

  it('a name the reference grammar refuses: InspectFailed, Error: InvalidImageName', () => {
    const { events, waiting } = start('Nginx');
    const msg = 'Failed to apply default image tag "Nginx": couldn\'t parse image name "Nginx": invalid reference format: repository name (library/Nginx) must be lowercase';
    expect(events).toEqual([`Warning InspectFailed ${msg}`, 'Warning Failed Error: InvalidImageName']);
    expect(waiting()).toEqual({ reason: 'InvalidImageName', message: msg });
  });
});

describe('imagePullSecrets (through the pod worker)', () => {
  function setup(secrets: Record<string, Secret>) {
    const clock = new FakeClock();
    const timers = new TimerQueue(clock);
    const events: string[] = [];
    const sink: EventSink = { event: (_o: KubeObject, type, reason, message) => void events.push(`${type} ${reason} ${message}`) };
    const statuses: unknown[] = [];
    const client = {
      patch: async (_r: unknown, _ns: unknown, _n: unknown, body: { status: unknown }) => void statuses.push(body.status),
      delete: async () => ({}),
      get: async (_r: unknown, _ns: unknown, name: string) => {
        const s = secrets[name];
        if (!s) throw new StatusError('NotFound', `secrets "${name}" not found`, undefined, 404);
        return s;
      },
    } as unknown as KubeApi;
    const host: WorkerHost = {
      client, timers, clock, logger: silentLogger(), env: env(), events: sink,
      hostIP: () => '10.0.0.1', allocateIP: () => '10.1.0.2', releaseIP: () => undefined, released: () => undefined, closed: () => undefined,
    };
    const advance = async (ms: number) => {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        await clock.advance(Math.min(1000, end - clock.now()));
        timers.runDue();
        await new Promise((r) => setImmediate(r));
      }
    };
    return { host, events, advance, secrets };
  }
  const pod = (names: string[]): Pod => ({
    metadata: { name: 'x', namespace: 'default', uid: 'u-1' },
    spec: { nodeName: 'n1', containers: [{ name: 'web', image: 'acme/private:v1' }], imagePullSecrets: names.map((name) => ({ name })) },
  });
  const regcred = (): Secret => ({
    metadata: { name: 'regcred', namespace: 'default' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { 'https://index.docker.io/v1/': { username: 'u', password: 'p' } } })).toString('base64') },
  });

  it('with a dockerconfigjson Secret for docker.io the private image pulls', async () => {
    const { host, events, advance } = setup({ regcred: regcred() });
    const w = new PodWorker(host, pod(['regcred']));
    w.start();
    await advance(1000);
    expect(events).toContain('Normal Started Started container web');
    w.close();
  });

  it('without it: FailedToRetrieveImagePullSecret, pull access denied; creating the Secret lets a later retry pull', async () => {
    const { host, events, advance, secrets } = setup({});
    const w = new PodWorker(host, pod(['regcred']));
    w.start();
    await advance(1000);
    expect(events[0]).toBe('Warning FailedToRetrieveImagePullSecret Unable to retrieve some image pull secrets (regcred); attempting to pull the image may not succeed.');
    expect(events).toContain(
      'Warning Failed Failed to pull image "acme/private:v1": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/acme/private:v1": failed to resolve reference "docker.io/acme/private:v1": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    );
    secrets.regcred = regcred();
    await advance(60_000);
    expect(events).toContain('Normal Started Started container web');
    w.close();
  });
});

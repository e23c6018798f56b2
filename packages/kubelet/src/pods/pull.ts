// The image step of a container start, as the kubelet's image manager (EnsureImageExists) takes it:
// IfNotPresent pulls an image the node lacks, Always pulls on every start, Never fails with ErrImageNeverPull
// while the image is absent. A pull takes the node's emulated pull time and is reported by Pulling/Pulled.
// A pull the registry refuses (the image catalogue: a missing tag, a private repository without credentials)
// fails with ErrImagePull and puts the image in back-off: until it ends, a sync finds ImagePullBackOff
// ("Back-off pulling image …: ErrImagePull: <the error>") instead of pulling; each failure doubles it up to its cap.
import { Message, Reason } from '../events.ts';
import type { RegistryAuth } from '../images/credentials.ts';
import { invalidImage } from '../images/registry.ts';
import type { ContainerRunState, ContainerRuntime, LifecycleEnv, LifecycleEvents } from './container-runtime.ts';

/** The kubelet's image back-off: backOffPeriod (also its pod workers' retry of a failed sync) and MaxImageBackOff. */
export const IMAGE_BACKOFF = { initialMs: 10_000, maxMs: 300_000 } as const;

/**
 * Puts a container that is about to start into its pull (or straight to "image ready"). Returns the time to
 * look again when the image cannot be had (policy Never, a failed pull, a back-off), undefined when the start goes on.
 */
export function beginPull(c: ContainerRuntime, now: number, env: LifecycleEnv, events?: LifecycleEvents, auth?: RegistryAuth): number | undefined {
  const backOff = env.imageBackOff ?? IMAGE_BACKOFF;
  // The pod worker syncs a pod whose start failed again after its back-off period.
  const retryAt = now + backOff.initialMs;
  const invalid = c.image ? invalidImage(c.image) : undefined;
  if (invalid) {
    c.state = { kind: 'waiting', reason: invalid.reason, message: invalid.message, until: retryAt };
    events?.(c, 'Warning', Reason.InspectFailed, invalid.message);
    events?.(c, 'Warning', Reason.Failed, Message.failed(invalid.reason));
    return retryAt;
  }
  // A restart finds the image it ran with.
  const present = c.lastState !== undefined || env.hasImage(c.image);
  if (!present && c.pullPolicy === 'Never') {
    const message = Message.neverPull(c.image);
    c.state = { kind: 'waiting', reason: 'ErrImageNeverPull', message, until: retryAt };
    events?.(c, 'Warning', Reason.ErrImageNeverPull, message);
    events?.(c, 'Warning', Reason.Failed, Message.failed('ErrImageNeverPull'));
    return retryAt;
  }
  // Always pulls on every start, even with the image on the node (and on every restart).
  const pull = c.pullPolicy === 'Always' || (!present && c.pullPolicy === 'IfNotPresent');
  if (pull) {
    const b = c.pullBackOff;
    if (b && now - b.at < b.delayMs) {
      const message = Message.backOffPull(c.image);
      // Since v1.32 the waiting message carries the last pull's error (the event does not).
      c.state = { kind: 'waiting', reason: 'ImagePullBackOff', message: `${message}: ${b.lastError}`, until: retryAt };
      events?.(c, 'Normal', Reason.BackOff, message);
      events?.(c, 'Warning', Reason.Failed, Message.failed('ImagePullBackOff'));
      return retryAt;
    }
    const failure = env.pullFailure?.(c.image, auth);
    if (failure) {
      events?.(c, 'Normal', Reason.Pulling, Message.pulling(c.image));
      events?.(c, 'Warning', Reason.Failed, Message.pullFailed(c.image, failure.message));
      // flowcontrol.Backoff.Next: the first failure, or one after a quiet 2 × max, starts over.
      const delayMs = !b || now - b.at > 2 * backOff.maxMs ? backOff.initialMs : Math.min(b.delayMs * 2, backOff.maxMs);
      c.pullBackOff = { at: now, delayMs, lastError: `${failure.reason}: ${failure.message}` };
      c.state = { kind: 'waiting', reason: failure.reason, message: failure.message, until: retryAt };
      events?.(c, 'Warning', Reason.Failed, Message.failed(failure.reason));
      return retryAt;
    }
  }
  c.state = { kind: 'waiting', reason: c.init ? 'PodInitializing' : 'ContainerCreating', until: now + (pull ? env.imagePullMs : 0), imageReady: true };
  if (pull) {
    c.state.pullFrom = now;
    events?.(c, 'Normal', Reason.Pulling, Message.pulling(c.image));
  }
  return undefined;
}

/** The image is ready: Pulled with the pull's time and size, or "already present on machine". */
export function recordPulled(c: ContainerRuntime, s: Extract<ContainerRunState, { kind: 'waiting' }>, now: number, env: LifecycleEnv, events?: LifecycleEvents): void {
  env.imagePulled(c.image);
  c.pullBackOff = undefined;
  if (!events) return;
  if (s.pullFrom !== undefined) {
    const until = s.until ?? now;
    events(c, 'Normal', Reason.Pulled, Message.pulled(c.image, until - s.pullFrom, now - s.pullFrom, env.imageSize?.(c.image) ?? 0));
  } else {
    events(c, 'Normal', Reason.Pulled, Message.alreadyPresent(c.image));
  }
}

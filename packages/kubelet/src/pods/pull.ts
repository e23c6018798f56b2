// The image step of a container start, as the kubelet's image manager (EnsureImageExists) takes it:
// IfNotPresent pulls an image the node lacks, Always pulls on every start, Never fails with ErrImageNeverPull
// while the image is absent. A pull takes the node's emulated pull time and is reported by Pulling/Pulled.
import { Message, Reason } from '../events.ts';
import type { ContainerRunState, ContainerRuntime, LifecycleEnv, LifecycleEvents } from './lifecycle.ts';

/** A pod whose image cannot be made present is synced again after this (the kubelet's pod worker back-off). */
export const IMAGE_RETRY_MS = 10_000;

/**
 * Puts a container that is about to start into its pull (or straight to "image ready"). Returns the time to
 * look again when the image cannot be had (pull policy Never), undefined when the start goes on.
 */
export function beginPull(c: ContainerRuntime, now: number, env: LifecycleEnv, events?: LifecycleEvents): number | undefined {
  // A restart finds the image it ran with.
  const present = c.lastState !== undefined || env.hasImage(c.image);
  if (!present && c.pullPolicy === 'Never') {
    const message = Message.neverPull(c.image);
    c.state = { kind: 'waiting', reason: 'ErrImageNeverPull', message, until: now + IMAGE_RETRY_MS };
    events?.(c, 'Warning', Reason.ErrImageNeverPull, message);
    events?.(c, 'Warning', Reason.Failed, Message.failed('ErrImageNeverPull'));
    return c.state.until;
  }
  // Always pulls on every start, even with the image on the node (and on every restart).
  const pull = c.pullPolicy === 'Always' || (!present && c.pullPolicy === 'IfNotPresent');
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
  if (!events) return;
  if (s.pullFrom !== undefined) {
    const until = s.until ?? now;
    events(c, 'Normal', Reason.Pulled, Message.pulled(c.image, until - s.pullFrom, now - s.pullFrom, env.imageSize?.(c.image) ?? 0));
  } else {
    events(c, 'Normal', Reason.Pulled, Message.alreadyPresent(c.image));
  }
}

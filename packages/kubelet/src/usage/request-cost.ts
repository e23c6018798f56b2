// What a request served costs a container in CPU, and the window its usage is averaged over. A real server burns
// CPU per request; kemu charges a fixed CPU time per request: the pod annotation `kemu.dev/cpu-per-request`
// (`.<container>` for one container; a CPU quantity read as core-seconds, so `100m` = 100 ms of one core),
// else the image's own figure below, else 1 ms. `kemu.dev/cpu-usage-window` (a duration) overrides the
// kubelet's --cpu-usage-window for the pod.
import { tryParseQuantity, type Pod } from '@kemu/api';
import { parseDuration } from '@kemu/base';
import { parseImageReference } from '../images/reference.ts';

export const CPU_PER_REQUEST_ANNOTATION = 'kemu.dev/cpu-per-request';
export const CPU_USAGE_WINDOW_ANNOTATION = 'kemu.dev/cpu-usage-window';
/** A request to an image kemu has no figure for: about what a small web server spends on a page. */
export const DEFAULT_CPU_PER_REQUEST = 0.001;

/**
 * Core-seconds per request of images whose cost is known. registry.k8s.io/hpa-example's index.php (the HPA
 * walkthrough's php-apache) adds sqrt($x) a million times per request: about 0.1 s of one core.
 */
const IMAGE_CPU_PER_REQUEST: ReadonlyMap<string, number> = new Map([
  ['registry.k8s.io/hpa-example', 0.1],
  ['k8s.gcr.io/hpa-example', 0.1],
  ['gcr.io/google_containers/hpa-example', 0.1],
]);

interface ContainerLike {
  name: string;
  image?: string;
  resources?: { limits?: Record<string, unknown> };
}

function repository(image: string | undefined): string {
  const ref = parseImageReference(image ?? '');
  return 'error' in ref ? (image ?? '') : ref.repository;
}

/** The CPU time (core-seconds) one request served by `container` costs. */
export function cpuPerRequest(pod: Pod, container: ContainerLike): number {
  const ann = pod.metadata.annotations ?? {};
  const text = ann[`${CPU_PER_REQUEST_ANNOTATION}.${container.name}`] ?? ann[CPU_PER_REQUEST_ANNOTATION];
  const v = text === undefined ? undefined : tryParseQuantity(text.trim());
  if (v !== undefined && v >= 0) return v;
  return IMAGE_CPU_PER_REQUEST.get(repository(container.image)) ?? DEFAULT_CPU_PER_REQUEST;
}

/** The window (ms) the pod's traffic usage is averaged over: its annotation, else the kubelet's flag. */
export function usageWindowMs(pod: Pod, fallbackMs: number): number {
  const text = pod.metadata.annotations?.[CPU_USAGE_WINDOW_ANNOTATION];
  if (text === undefined) return fallbackMs;
  try {
    const ms = parseDuration(text.trim());
    return ms > 0 ? ms : fallbackMs;
  } catch {
    return fallbackMs;
  }
}

/** The container's CPU limit in cores, undefined without one. */
export function cpuLimit(container: ContainerLike): number | undefined {
  return tryParseQuantity(container.resources?.limits?.['cpu']);
}

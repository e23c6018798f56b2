// AlwaysPullImages: every container of a pod (containers, initContainers, ephemeralContainers) gets
// imagePullPolicy Always on create and on updates that bring a new image, so a pod cannot reuse an image
// pulled on its node by someone allowed to. Its validating half refuses any other policy left by a later
// mutating step.
import { errors, qualifiedResource } from '@kemu/api';
import type { AdmissionAttributes, AdmissionPlugin } from './types.ts';
import { isObj, podWrite } from './types.ts';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Each container of the pod spec with its field path. */
function containersOf(spec: Record<string, unknown>): Array<{ c: Record<string, unknown>; path: string }> {
  const out: Array<{ c: Record<string, unknown>; path: string }> = [];
  for (const list of CONTAINER_LISTS) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    cs.forEach((c: unknown, i) => {
      if (isObj(c)) out.push({ c, path: `spec.${list}[${i}]` });
    });
  }
  return out;
}

function images(spec: unknown): Set<unknown> {
  return new Set(isObj(spec) ? containersOf(spec).map(({ c }) => c.image) : []);
}

/** The pod this plugin acts on: pods and pods/ephemeralcontainers, skipping updates with no new image. */
function target(attrs: AdmissionAttributes) {
  const pod = podWrite(attrs, ['ephemeralcontainers']);
  if (!pod) return undefined;
  if (attrs.operation === 'UPDATE') {
    const old = images(attrs.oldObject?.spec);
    if ([...images(pod.spec)].every((i) => old.has(i))) return undefined;
  }
  return pod;
}

export const alwaysPullImagesPlugin: AdmissionPlugin = {
  name: 'AlwaysPullImages',
  admit(attrs) {
    const pod = target(attrs);
    if (!pod) return;
    for (const { c } of containersOf(pod.spec)) c.imagePullPolicy = 'Always';
  },
  validate(attrs) {
    const pod = target(attrs);
    if (!pod) return;
    for (const { c, path } of containersOf(pod.spec)) {
      if (c.imagePullPolicy !== 'Always') {
        const value = typeof c.imagePullPolicy === 'string' ? c.imagePullPolicy : '';
        throw errors.forbidden(`${qualifiedResource(attrs.resource)} "${attrs.name}" is forbidden: ${path}.imagePullPolicy: Unsupported value: ${JSON.stringify(value)}: supported values: "Always"`);
      }
    }
  },
};

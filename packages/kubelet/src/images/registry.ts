// The emulated registries behind a pull: what containerd answers the kubelet for an image, given the
// catalogue and the pod's registry credentials. The texts are containerd's (v1.7/2.0) as the CRI returns
// them, so "Failed to pull image …" events and the container's waiting message read as on a real node.
import type { ImageCatalog } from './catalog.ts';
import { hasCredentials, type RegistryAuth } from './credentials.ts';
import { parseImageReference, type ImageReference } from './reference.ts';

/** A pull that cannot be done: the waiting reason it leads to and the error's text. */
export interface PullFailure {
  reason: 'InvalidImageName' | 'ErrImagePull';
  /** For ErrImagePull, the runtime's error (the waiting message); for InvalidImageName, the kubelet's message. */
  message: string;
}

/** Whether the reference is well formed (the kubelet's applyDefaultImageTag): its failure, or undefined. */
export function invalidImage(image: string): PullFailure | undefined {
  const ref = parseImageReference(image);
  if (!('error' in ref)) return undefined;
  return { reason: 'InvalidImageName', message: `Failed to apply default image tag ${q(image)}: couldn't parse image name ${q(image)}: ${ref.error}` };
}

/** The outcome of pulling `image`: undefined when it pulls, else why not. */
export function pullFailure(catalog: ImageCatalog, image: string, auth: RegistryAuth | undefined): PullFailure | undefined {
  const ref = parseImageReference(image);
  if ('error' in ref) return invalidImage(image);
  const answer = catalog.lookup(ref);
  if (answer.kind === 'unknown') return undefined;
  // A private repository answers 401 before it says whether the tag exists.
  if (answer.private && !hasCredentials(auth, ref)) return { reason: 'ErrImagePull', message: accessDenied(ref) };
  if (answer.kind === 'missing') return { reason: 'ErrImagePull', message: notFound(ref) };
  return undefined;
}

const q = (s: string) => JSON.stringify(s);

export function notFound(ref: ImageReference): string {
  const n = ref.normalized;
  return `rpc error: code = NotFound desc = failed to pull and unpack image ${q(n)}: failed to resolve reference ${q(n)}: ${n}: not found`;
}

export function accessDenied(ref: ImageReference): string {
  const n = ref.normalized;
  const head = `rpc error: code = Unknown desc = failed to pull and unpack image ${q(n)}: failed to resolve reference ${q(n)}: `;
  // Docker Hub hands out an anonymous token and then refuses it; a registry with basic auth answers 401.
  if (ref.domain === 'docker.io') return `${head}pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`;
  const object = ref.digest ?? ref.tag ?? 'latest';
  return `${head}unexpected status from HEAD request to https://${ref.domain}/v2/${ref.path}/manifests/${object}: 401 Unauthorized`;
}

// The Events a kubelet records, with Kubernetes' reasons and messages (pkg/kubelet/events, the image manager
// and kuberuntime of v1.31): container events carry fieldPath spec.containers{<name>}, node events refer to
// the Node with uid = node name (as the kubelet's nodeRef does, and as `kubectl describe node` looks them up).
import type { KubeObject } from '@kemu/api';
import { formatDuration } from '@kemu/base';
import type { EventOptions } from '@kemu/client';

export type EventType = 'Normal' | 'Warning';

/** What the kubelet needs of @kemu/client's EventRecorder (tests hand in a fake). */
export interface EventSink {
  event(obj: KubeObject, type: EventType, reason: string, message: string, opts?: EventOptions): void;
}

export const Reason = {
  Pulling: 'Pulling',
  Pulled: 'Pulled',
  Created: 'Created',
  Started: 'Started',
  Killing: 'Killing',
  BackOff: 'BackOff',
  Unhealthy: 'Unhealthy',
  ErrImageNeverPull: 'ErrImageNeverPull',
  InspectFailed: 'InspectFailed',
  FailedToRetrieveImagePullSecret: 'FailedToRetrieveImagePullSecret',
  Failed: 'Failed',
  FailedMount: 'FailedMount',
  DeadlineExceeded: 'DeadlineExceeded',
  Starting: 'Starting',
  NodeAllocatableEnforced: 'NodeAllocatableEnforced',
  NodeHasSufficientMemory: 'NodeHasSufficientMemory',
  NodeHasNoDiskPressure: 'NodeHasNoDiskPressure',
  NodeHasSufficientPID: 'NodeHasSufficientPID',
  NodeHasInsufficientMemory: 'NodeHasInsufficientMemory',
  NodeHasDiskPressure: 'NodeHasDiskPressure',
  NodeHasInsufficientPID: 'NodeHasInsufficientPID',
  NodeReady: 'NodeReady',
  NodeNotReady: 'NodeNotReady',
  NodeSchedulable: 'NodeSchedulable',
  NodeNotSchedulable: 'NodeNotSchedulable',
} as const;

/** Go's %q for the strings we quote (image names): JSON's escaping is the same for them. */
const q = (s: string) => JSON.stringify(s);

export const Message = {
  pulling: (image: string) => `Pulling image ${q(image)}`,
  pulled: (image: string, pullMs: number, totalMs: number, sizeBytes: number) =>
    `Successfully pulled image ${q(image)} in ${formatDuration(Math.trunc(pullMs))} (${formatDuration(Math.trunc(totalMs))} including waiting). Image size: ${sizeBytes} bytes.`,
  alreadyPresent: (image: string) => `Container image ${q(image)} already present on machine`,
  // v1.31 wording (v1.32 added a colon: "Created container: web").
  created: (container: string) => `Created container ${container}`,
  started: (container: string) => `Started container ${container}`,
  killing: (container: string) => `Stopping container ${container}`,
  backOff: (container: string, podRef: string) => `Back-off restarting failed container ${container} in pod ${podRef}`,
  // kuberuntime's computePodActions: the kill's message, with ", will be restarted" unless restartPolicy is Never.
  probeKilling: (container: string, probe: 'liveness' | 'startup', restart: boolean) =>
    `Container ${container} failed ${probe} probe${restart ? ', will be restarted' : ''}`,
  // The image manager's pull failure (err is the runtime's error text) and its back-off.
  pullFailed: (image: string, err: string) => `Failed to pull image ${q(image)}: ${err}`,
  backOffPull: (image: string) => `Back-off pulling image ${q(image)}`,
  // getPullSecretsForPod: named imagePullSecrets that could not be read.
  pullSecretsMissing: (names: readonly string[]) => `Unable to retrieve some image pull secrets (${names.join(', ')}); attempting to pull the image may not succeed.`,
  neverPull: (image: string) => `Container image ${q(image)} is not present with pull policy of Never`,
  // startContainer: "Error: <err>" for an image that could not be made present.
  failed: (err: string) => `Error: ${err}`,
  starting: () => 'Starting kubelet.',
  allocatableEnforced: () => 'Updated Node Allocatable limit across pods',
  nodeStatus: (node: string, event: string) => `Node ${node} status is now: ${event}`,
};

/** The kubelet's format.Pod: name_namespace(uid). */
export function podRef(name: string, namespace: string, uid: string): string {
  return `${name}_${namespace}(${uid})`;
}

export function containerFieldPath(name: string, init: boolean, ephemeral = false): string {
  return `${ephemeral ? 'spec.ephemeralContainers' : init ? 'spec.initContainers' : 'spec.containers'}{${name}}`;
}

/** The reference the kubelet's node events are about (kind Node, uid = the node's name). */
export function nodeRefObject(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } };
}

/** The event a node condition's status is reported with (the kubelet's setters), undefined for others. */
export function conditionEvent(type: string, status: string): string | undefined {
  switch (type) {
    case 'MemoryPressure':
      return status === 'True' ? Reason.NodeHasInsufficientMemory : Reason.NodeHasSufficientMemory;
    case 'DiskPressure':
      return status === 'True' ? Reason.NodeHasDiskPressure : Reason.NodeHasNoDiskPressure;
    case 'PIDPressure':
      return status === 'True' ? Reason.NodeHasInsufficientPID : Reason.NodeHasSufficientPID;
    case 'Ready':
      return status === 'True' ? Reason.NodeReady : Reason.NodeNotReady;
    default:
      return undefined;
  }
}

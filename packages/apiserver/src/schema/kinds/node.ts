// core/v1 Node (field numbers from k8s.io/api core/v1 generated.proto, at Kubernetes 1.31: no
// NodeSystemInfo.swap; list semantics from its types.go tags). Kubelets write it in JSON; the schema serves
// field validation and protobuf bodies alike.
import { bool, boolPtr, byKey, i32, i64, list, mapOf, msg, setList, str, strs, struct } from '../build.ts';
import { ObjectMeta, Quantity, Time } from './meta.ts';

const CORE = 'io.k8s.api.core.v1.';

export const Taint = struct(`${CORE}Taint`, 'Keeps pods off a node unless they tolerate it.', {
  1: str('key', 'Key of the taint, matched by tolerations.'),
  2: str('value', 'Value of the taint, matched by tolerations with operator Equal.'),
  3: str('effect', 'NoSchedule, PreferNoSchedule or NoExecute: what happens to pods that do not tolerate it.'),
  4: msg('timeAdded', () => Time, 'When the taint was added; set for NoExecute taints only.'),
});
export const ConfigMapNodeConfigSource = struct(`${CORE}ConfigMapNodeConfigSource`, 'Deprecated: a ConfigMap holding kubelet configuration.', {
  1: str('namespace', 'Namespace of the ConfigMap.'),
  2: str('name', 'Name of the ConfigMap.'),
  3: str('uid', 'UID of the ConfigMap.'),
  4: str('resourceVersion', 'The resourceVersion of the ConfigMap.'),
  5: str('kubeletConfigKey', 'Key of the ConfigMap that holds the kubelet configuration.'),
});
export const NodeConfigSource = struct(`${CORE}NodeConfigSource`, 'Deprecated: where a kubelet was told to load its configuration from; no longer used.', {
  2: msg('configMap', () => ConfigMapNodeConfigSource, 'The ConfigMap holding the configuration.'),
});
export const NodeSpec = struct(`${CORE}NodeSpec`, 'The desired state of a node: its pod address range, taints and whether it takes new pods.', {
  1: str('podCIDR', 'IP range assigned to the node for its pods.'),
  7: strs('podCIDRs', 'IP ranges for pods, at most one per family; the first equals podCIDR.', setList(true)),
  3: str('providerID', 'ID of the machine in the cloud provider: <provider>://<id>.'),
  4: bool('unschedulable', 'When true, no new pods are scheduled here (kubectl cordon sets it).'),
  5: list('taints', () => Taint, 'Taints that keep pods without matching tolerations off the node.'),
  6: msg('configSource', () => NodeConfigSource, 'Deprecated: no longer used.'),
  2: str('externalID', 'Deprecated: not used.'),
});

export const NodeCondition = struct(`${CORE}NodeCondition`, 'One observed condition of a node, such as Ready.', {
  1: str('type', 'Ready, MemoryPressure, DiskPressure, PIDPressure or NetworkUnavailable.'),
  2: str('status', 'True, False or Unknown.'),
  3: msg('lastHeartbeatTime', () => Time, 'When the kubelet last reported this condition.'),
  4: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
  5: str('reason', 'One-word, CamelCase reason for the last transition.'),
  6: str('message', 'Human-readable details of the last transition.'),
});
export const NodeAddress = struct(`${CORE}NodeAddress`, 'One address of a node.', {
  1: str('type', 'Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.'),
  2: str('address', 'The address.'),
});
export const DaemonEndpoint = struct(`${CORE}DaemonEndpoint`, 'Where a daemon on the node listens.', { 1: i32('Port', 'Port number the daemon listens on.') });
export const NodeDaemonEndpoints = struct(`${CORE}NodeDaemonEndpoints`, 'Ports of the daemons running on a node.', {
  1: msg('kubeletEndpoint', () => DaemonEndpoint, "Where the kubelet's API (logs, exec, port-forward) listens."),
});
export const NodeSystemInfo = struct(`${CORE}NodeSystemInfo`, 'Facts the kubelet reports about the machine: IDs, kernel, OS and versions.', {
  1: str('machineID', 'Machine ID from /etc/machine-id.'),
  2: str('systemUUID', 'Hardware UUID of the machine, from its firmware.'),
  3: str('bootID', 'ID of the current boot; changes when the node reboots.'),
  4: str('kernelVersion', 'Kernel version (uname -r).'),
  5: str('osImage', 'Operating system image, from /etc/os-release (Debian GNU/Linux 12…).'),
  6: str('containerRuntimeVersion', 'Container runtime and its version, such as containerd://1.7.0.'),
  7: str('kubeletVersion', 'Version of the kubelet.'),
  8: str('kubeProxyVersion', 'Deprecated: version of kube-proxy as the kubelet guessed it; not reliable.'),
  9: str('operatingSystem', 'Operating system the node runs: linux or windows.'),
  10: str('architecture', 'CPU architecture of the node, such as amd64 or arm64.'),
});
export const ContainerImage = struct(`${CORE}ContainerImage`, 'One container image present on a node.', {
  1: strs('names', 'Names the image is known by, with tags and digests.'),
  2: i64('sizeBytes', 'Size of the image in bytes.'),
});
export const AttachedVolume = struct(`${CORE}AttachedVolume`, 'One volume attached to a node.', {
  1: str('name', 'Unique name of the volume.'),
  2: str('devicePath', 'Where the volume is expected to appear on the node.'),
});
export const NodeConfigStatus = struct(`${CORE}NodeConfigStatus`, 'Deprecated: state of dynamic kubelet configuration; no longer reported.', {
  1: msg('assigned', () => NodeConfigSource, 'The configuration the node was told to use.'),
  2: msg('active', () => NodeConfigSource, 'The configuration the kubelet runs with.'),
  3: msg('lastKnownGood', () => NodeConfigSource, 'The configuration the kubelet falls back to.'),
  4: str('error', 'Why the assigned configuration could not be used.'),
});
export const NodeRuntimeHandlerFeatures = struct(`${CORE}NodeRuntimeHandlerFeatures`, 'Optional features a runtime handler supports.', {
  1: boolPtr('recursiveReadOnlyMounts', 'Whether the handler supports recursive read-only mounts.'),
  2: boolPtr('userNamespaces', 'Whether the handler supports user namespaces (pods with hostUsers false).'),
});
export const NodeRuntimeHandler = struct(`${CORE}NodeRuntimeHandler`, "One handler of the node's container runtime (what a RuntimeClass names).", {
  1: str('name', 'Name of the handler; empty for the default one.'),
  2: msg('features', () => NodeRuntimeHandlerFeatures, 'Features the handler supports.'),
});
export const NodeFeatures = struct(`${CORE}NodeFeatures`, 'Optional features the node supports.', {
  1: boolPtr('supplementalGroupsPolicy', "Whether the node honours a pod's securityContext.supplementalGroupsPolicy."),
});
export const NodeStatus = struct(`${CORE}NodeStatus`, 'The observed state of a node, reported by its kubelet: resources, conditions, addresses.', {
  1: mapOf('capacity', () => Quantity, 'Total resources of the node, such as cpu, memory, pods and ephemeral-storage.'),
  2: mapOf('allocatable', () => Quantity, 'Resources pods may use: capacity minus what is reserved for the system.'),
  3: str('phase', 'Deprecated: not set.'),
  4: list('conditions', () => NodeCondition, 'Latest observations of the node, one per type (Ready…).', byKey('type')),
  5: list('addresses', () => NodeAddress, 'Addresses the node is reachable at, by type.', byKey('type')),
  6: msg('daemonEndpoints', () => NodeDaemonEndpoints, 'Ports of the daemons on the node (the kubelet).'),
  7: msg('nodeInfo', () => NodeSystemInfo, 'Facts about the machine: IDs, kernel, OS and versions.'),
  8: list('images', () => ContainerImage, 'Container images present on the node.'),
  9: strs('volumesInUse', 'Volumes attached to the node and in use by pods.'),
  10: list('volumesAttached', () => AttachedVolume, 'Volumes attached to the node.'),
  11: msg('config', () => NodeConfigStatus, 'Deprecated: state of dynamic kubelet configuration.'),
  12: list('runtimeHandlers', () => NodeRuntimeHandler, 'Handlers the container runtime offers, with their features.'),
  13: msg('features', () => NodeFeatures, 'Optional features the node supports.'),
});

export const Node = struct(`${CORE}Node`, 'A machine in the cluster; its kubelet runs the pods bound to it and reports its status.', {
  1: msg('metadata', () => ObjectMeta, 'Standard object metadata: name, labels, annotations, owners.'),
  2: msg('spec', () => NodeSpec, 'Desired state: pod CIDRs, taints, unschedulable.'),
  3: msg('status', () => NodeStatus, 'Observed state, reported by the kubelet.'),
});

// core/v1 Node (field numbers from k8s.io/api core/v1 generated.proto, at Kubernetes 1.31: no
// NodeSystemInfo.swap). Kubelets write it in JSON; the table serves field validation and protobuf bodies alike.
import { bool, boolPtr, i32, i64, list, mapOf, msg, str, strs, struct } from '../build.ts';
import { ObjectMeta, Quantity, Time } from './meta.ts';

export const Taint = struct('', '', { 1: str('key'), 2: str('value'), 3: str('effect'), 4: msg('timeAdded', () => Time) });
export const ConfigMapNodeConfigSource = struct('', '', { 1: str('namespace'), 2: str('name'), 3: str('uid'), 4: str('resourceVersion'), 5: str('kubeletConfigKey') });
export const NodeConfigSource = struct('', '', { 2: msg('configMap', () => ConfigMapNodeConfigSource) });
export const NodeSpec = struct('', '', {
  1: str('podCIDR'),
  7: strs('podCIDRs'),
  3: str('providerID'),
  4: bool('unschedulable'),
  5: list('taints', () => Taint),
  6: msg('configSource', () => NodeConfigSource),
  2: str('externalID'),
});

export const NodeCondition = struct('', '', {
  1: str('type'),
  2: str('status'),
  3: msg('lastHeartbeatTime', () => Time),
  4: msg('lastTransitionTime', () => Time),
  5: str('reason'),
  6: str('message'),
});
export const NodeAddress = struct('', '', { 1: str('type'), 2: str('address') });
export const DaemonEndpoint = struct('', '', { 1: i32('Port') });
export const NodeDaemonEndpoints = struct('', '', { 1: msg('kubeletEndpoint', () => DaemonEndpoint) });
export const NodeSystemInfo = struct('', '', {
  1: str('machineID'),
  2: str('systemUUID'),
  3: str('bootID'),
  4: str('kernelVersion'),
  5: str('osImage'),
  6: str('containerRuntimeVersion'),
  7: str('kubeletVersion'),
  8: str('kubeProxyVersion'),
  9: str('operatingSystem'),
  10: str('architecture'),
});
export const ContainerImage = struct('', '', { 1: strs('names'), 2: i64('sizeBytes') });
export const AttachedVolume = struct('', '', { 1: str('name'), 2: str('devicePath') });
export const NodeConfigStatus = struct('', '', {
  1: msg('assigned', () => NodeConfigSource),
  2: msg('active', () => NodeConfigSource),
  3: msg('lastKnownGood', () => NodeConfigSource),
  4: str('error'),
});
export const NodeRuntimeHandlerFeatures = struct('', '', { 1: boolPtr('recursiveReadOnlyMounts'), 2: boolPtr('userNamespaces') });
export const NodeRuntimeHandler = struct('', '', { 1: str('name'), 2: msg('features', () => NodeRuntimeHandlerFeatures) });
export const NodeFeatures = struct('', '', { 1: boolPtr('supplementalGroupsPolicy') });
export const NodeStatus = struct('', '', {
  1: mapOf('capacity', () => Quantity),
  2: mapOf('allocatable', () => Quantity),
  3: str('phase'),
  4: list('conditions', () => NodeCondition),
  5: list('addresses', () => NodeAddress),
  6: msg('daemonEndpoints', () => NodeDaemonEndpoints),
  7: msg('nodeInfo', () => NodeSystemInfo),
  8: list('images', () => ContainerImage),
  9: strs('volumesInUse'),
  10: list('volumesAttached', () => AttachedVolume),
  11: msg('config', () => NodeConfigStatus),
  12: list('runtimeHandlers', () => NodeRuntimeHandler),
  13: msg('features', () => NodeFeatures),
});

export const Node = struct('', '', { 1: msg('metadata', () => ObjectMeta), 2: msg('spec', () => NodeSpec), 3: msg('status', () => NodeStatus) });

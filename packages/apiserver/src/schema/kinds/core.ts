// core/v1 top-level kinds kubectl's typed clients send: Namespace, ConfigMap, Secret, ServiceAccount,
// Service, Pod, Binding (field numbers from k8s.io/api core/v1 generated.proto).
import { bool, boolPtr, i32, i32Ptr, list, mapOf, msg, str, strPtr, strs, struct } from '../build.ts';
import { ObjectMeta, IntOrString, Time } from './meta.ts';
import { LocalObjectReference, PodSpec } from './pod-spec.ts';

const metadata = msg('metadata', () => ObjectMeta);

export const ObjectReference = struct('io.k8s.api.core.v1.ObjectReference', '', {
  1: str('kind'),
  2: str('namespace'),
  3: str('name'),
  4: str('uid'),
  5: str('apiVersion'),
  6: str('resourceVersion'),
  7: str('fieldPath'),
});

export const NamespaceCondition = struct('io.k8s.api.core.v1.NamespaceCondition', '', {
  1: str('type'),
  2: str('status'),
  4: msg('lastTransitionTime', () => Time),
  5: str('reason'),
  6: str('message'),
});
export const Namespace = struct('io.k8s.api.core.v1.Namespace', '', {
  1: metadata,
  2: msg('spec', () => struct('', '', { 1: strs('finalizers') })),
  3: msg('status', () => struct('', '', { 1: str('phase'), 2: list('conditions', () => NamespaceCondition) })),
});

export const ConfigMap = struct('io.k8s.api.core.v1.ConfigMap', '', {
  1: metadata,
  4: boolPtr('immutable'),
  2: mapOf('data', 'string'),
  3: mapOf('binaryData', 'bytes'),
});

export const Secret = struct('io.k8s.api.core.v1.Secret', '', {
  1: metadata,
  5: boolPtr('immutable'),
  2: mapOf('data', 'bytes'),
  4: mapOf('stringData', 'string'),
  3: str('type'),
});

export const ServiceAccount = struct('io.k8s.api.core.v1.ServiceAccount', '', {
  1: metadata,
  2: list('secrets', () => ObjectReference),
  3: list('imagePullSecrets', () => LocalObjectReference),
  4: boolPtr('automountServiceAccountToken'),
});

export const ServicePort = struct('io.k8s.api.core.v1.ServicePort', '', {
  1: str('name'),
  2: str('protocol'),
  6: strPtr('appProtocol'),
  3: i32('port'),
  4: msg('targetPort', () => IntOrString),
  5: i32('nodePort'),
});
export const SessionAffinityConfig = struct('io.k8s.api.core.v1.SessionAffinityConfig', '', { 1: msg('clientIP', () => struct('', '', { 1: i32Ptr('timeoutSeconds') })) });
export const ServiceSpec = struct('io.k8s.api.core.v1.ServiceSpec', '', {
  1: list('ports', () => ServicePort),
  2: mapOf('selector', 'string'),
  3: str('clusterIP'),
  18: strs('clusterIPs'),
  4: str('type'),
  5: strs('externalIPs'),
  7: str('sessionAffinity'),
  8: str('loadBalancerIP'),
  9: strs('loadBalancerSourceRanges'),
  10: str('externalName'),
  11: str('externalTrafficPolicy'),
  12: i32('healthCheckNodePort'),
  13: bool('publishNotReadyAddresses'),
  14: msg('sessionAffinityConfig', () => SessionAffinityConfig),
  19: strs('ipFamilies'),
  17: strPtr('ipFamilyPolicy'),
  20: boolPtr('allocateLoadBalancerNodePorts'),
  21: strPtr('loadBalancerClass'),
  22: strPtr('internalTrafficPolicy'),
  23: strPtr('trafficDistribution'),
});
export const PortStatus = struct('io.k8s.api.core.v1.PortStatus', '', { 1: i32('port'), 2: str('protocol'), 3: strPtr('error') });
export const LoadBalancerIngress = struct('io.k8s.api.core.v1.LoadBalancerIngress', '', { 1: str('ip'), 2: str('hostname'), 3: strPtr('ipMode'), 4: list('ports', () => PortStatus) });
export const ServiceStatus = struct('io.k8s.api.core.v1.ServiceStatus', '', { 1: msg('loadBalancer', () => struct('', '', { 1: list('ingress', () => LoadBalancerIngress) })) }, { unlisted: ['conditions'] });
export const Service = struct('io.k8s.api.core.v1.Service', '', { 1: metadata, 2: msg('spec', () => ServiceSpec), 3: msg('status', () => ServiceStatus) });

export const PodCondition = struct('io.k8s.api.core.v1.PodCondition', '', {
  1: str('type'),
  2: str('status'),
  3: msg('lastProbeTime', () => Time),
  4: msg('lastTransitionTime', () => Time),
  5: str('reason'),
  6: str('message'),
});
const IP = struct('', '', { 1: str('ip') });
// Container statuses are written by kubelets (through JSON); a protobuf Pod from kubectl carries none.
export const PodStatus = struct('io.k8s.api.core.v1.PodStatus', '', {
  1: str('phase'),
  2: list('conditions', () => PodCondition),
  3: str('message'),
  4: str('reason'),
  11: str('nominatedNodeName'),
  5: str('hostIP'),
  16: list('hostIPs', () => IP),
  6: str('podIP'),
  12: list('podIPs', () => IP),
  7: msg('startTime', () => Time),
  9: str('qosClass'),
  14: str('resize'),
}, { unlisted: ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses', 'resourceClaimStatuses'] });
export const Pod = struct('io.k8s.api.core.v1.Pod', '', { 1: metadata, 2: msg('spec', () => PodSpec), 3: msg('status', () => PodStatus) });

export const Binding = struct('io.k8s.api.core.v1.Binding', '', { 1: metadata, 2: msg('target', () => ObjectReference) });

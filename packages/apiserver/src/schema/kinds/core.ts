// core/v1 top-level kinds kubectl's typed clients send: Namespace, ConfigMap, Secret, ServiceAccount,
// Service, Pod (its status; the spec is in pod-spec.ts), Binding, and the ObjectReference others point with.
// Field numbers from k8s.io/api core/v1 generated.proto; list semantics from its types.go tags.
import { bool, boolPtr, byKey, i32, i32Ptr, list, mapOf, msg, str, strPtr, strs, struct, withOpts } from '../build.ts';
import { ObjectMeta, IntOrString, Time } from './meta.ts';
import { LocalObjectReference, PodSpec } from './pod-spec.ts';

const CORE = 'io.k8s.api.core.v1.';
const metadata = msg('metadata', () => ObjectMeta, 'Standard object metadata: name, namespace, labels, annotations, owners.');

export const ObjectReference = struct(
  `${CORE}ObjectReference`,
  'Points at another object by kind, namespace and name (optionally uid, version and a field inside it).',
  {
    1: str('kind', 'Kind of the object (Pod, Node…).'),
    2: str('namespace', 'Namespace of the object; empty for cluster-scoped kinds.'),
    3: str('name', 'Name of the object.'),
    4: str('uid', 'UID of the object.'),
    5: str('apiVersion', 'API version of the object.'),
    6: str('resourceVersion', 'The resourceVersion of the object the reference was made from.'),
    7: str('fieldPath', 'A part of the object rather than the whole, such as spec.containers{web}.'),
  },
  { atomic: true },
);

export const NamespaceCondition = struct(`${CORE}NamespaceCondition`, 'One observed condition of a namespace, such as content still being removed.', {
  1: str('type', 'Type of condition, such as NamespaceContentRemaining or NamespaceFinalizersRemaining.'),
  2: str('status', 'True, False or Unknown.'),
  4: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
  5: str('reason', 'One-word, CamelCase reason for the last transition.'),
  6: str('message', 'Human-readable details of the last transition.'),
});
export const NamespaceSpec = struct(`${CORE}NamespaceSpec`, 'The desired state of a namespace: the finalizers that must run before it is removed.', {
  1: strs('finalizers', 'Names that must be removed before the namespace is deleted from storage; kubernetes by default.'),
});
export const NamespaceStatus = struct(`${CORE}NamespaceStatus`, 'The observed state of a namespace: its phase and conditions.', {
  1: str('phase', 'Active, or Terminating once deletion was requested.'),
  2: list('conditions', () => NamespaceCondition, 'Latest observations of the namespace, one per type.', byKey('type')),
});
export const Namespace = struct(`${CORE}Namespace`, 'A named scope for objects: names are unique within it, and access rules and quotas apply per namespace.', {
  1: metadata,
  2: msg('spec', () => NamespaceSpec, 'Desired state: the finalizers.'),
  3: msg('status', () => NamespaceStatus, 'Observed state: phase and conditions.'),
});

export const ConfigMap = struct(`${CORE}ConfigMap`, 'Non-secret configuration as key/value pairs, read by pods as environment variables or files.', {
  1: metadata,
  4: boolPtr('immutable', 'When true, data and binaryData can no longer be changed; the object can only be deleted.'),
  2: mapOf('data', 'string', 'UTF-8 text values by key; keys consist of letters, digits, -, _ and dots.'),
  3: mapOf('binaryData', 'bytes', 'Binary values by key (base64 in JSON); keys must not repeat those of data.'),
});

export const Secret = struct(`${CORE}Secret`, 'A small amount of sensitive data (passwords, tokens, keys) as key/value pairs, kept apart from pods.', {
  1: metadata,
  5: boolPtr('immutable', 'When true, data can no longer be changed; the object can only be deleted.'),
  2: mapOf('data', 'bytes', 'Secret values by key, base64-encoded in JSON.'),
  4: mapOf('stringData', 'string', 'Write-only plain-text values, merged into data on write (winning over it); never read back.'),
  3: str('type', 'What the secret holds and which keys it needs, such as Opaque (the default) or kubernetes.io/tls.'),
});

export const ServiceAccount = struct(`${CORE}ServiceAccount`, 'An identity for processes in pods; its tokens authenticate them to the API server.', {
  1: metadata,
  2: list('secrets', () => ObjectReference, 'Secrets in the same namespace that pods using this account may use (legacy tokens).', byKey('name')),
  3: list('imagePullSecrets', () => LocalObjectReference, 'Secrets for pulling images, added to every pod that uses this account.'),
  4: boolPtr('automountServiceAccountToken', 'Whether pods using this account get an API token mounted; a pod can override it.'),
});

export const ServicePort = struct(`${CORE}ServicePort`, 'One port a service exposes and where it sends the traffic.', {
  1: str('name', 'Name of the port, unique in the service; required when there is more than one port.'),
  2: str('protocol', 'TCP, UDP or SCTP; defaults to TCP.'),
  6: strPtr('appProtocol', 'Application protocol of the port, such as http or kubernetes.io/h2c.'),
  3: i32('port', 'Port the service listens on.'),
  4: msg('targetPort', () => IntOrString, "Number or name of the port on the pods; defaults to the value of port."),
  5: i32('nodePort', 'Port opened on every node for NodePort and LoadBalancer services; allocated when unset.'),
});
export const ClientIPConfig = struct(`${CORE}ClientIPConfig`, 'Settings of ClientIP session affinity.', {
  1: i32Ptr('timeoutSeconds', 'Seconds a client keeps going to the same endpoint, 1 to 86400; defaults to 10800.'),
});
export const SessionAffinityConfig = struct(`${CORE}SessionAffinityConfig`, 'Settings of session affinity.', {
  1: msg('clientIP', () => ClientIPConfig, 'Settings for sessionAffinity ClientIP.'),
});
export const ServiceSpec = struct(`${CORE}ServiceSpec`, 'The desired state of a service: its ports, the pods it selects and how it is exposed.', {
  1: list(
    'ports',
    () => ServicePort,
    'Ports the service exposes, unique by port and protocol.',
    withOpts(byKey('port', 'protocol'), { listType: { type: 'map', keys: ['port', 'protocol'], keyDefaults: { protocol: 'TCP' } } }),
  ),
  2: mapOf('selector', 'string', 'Labels of the pods that receive the traffic; without it, endpoints are managed by hand.', { atomicMap: true }),
  3: str('clusterIP', 'Virtual IP of the service, allocated when unset; None makes it headless. Cannot be changed.'),
  18: strs('clusterIPs', 'The cluster IPs, one per IP family; the first equals clusterIP.'),
  4: str('type', 'ClusterIP, NodePort, LoadBalancer or ExternalName; defaults to ClusterIP.'),
  5: strs('externalIPs', 'Further IPs, not managed by Kubernetes, on which nodes accept traffic for the service.'),
  7: str('sessionAffinity', 'ClientIP (a client keeps its endpoint) or None; defaults to None.'),
  8: str('loadBalancerIP', 'Deprecated: an IP asked of the load balancer; support depends on the provider.'),
  9: strs('loadBalancerSourceRanges', 'CIDRs allowed to reach a LoadBalancer service, where the provider supports it.'),
  10: str('externalName', 'DNS name the service is a CNAME for, with type ExternalName.'),
  11: str('externalTrafficPolicy', "Cluster or Local: whether external traffic may go to other nodes' endpoints; defaults to Cluster."),
  12: i32('healthCheckNodePort', 'Node port for load balancer health checks with externalTrafficPolicy Local.'),
  13: bool('publishNotReadyAddresses', 'When true, endpoints include pods that are not ready (for peer discovery).'),
  14: msg('sessionAffinityConfig', () => SessionAffinityConfig, 'Settings of session affinity.'),
  19: strs('ipFamilies', 'IPv4 and/or IPv6: the IP families of the service, in order.'),
  17: strPtr('ipFamilyPolicy', 'SingleStack, PreferDualStack or RequireDualStack; defaults to SingleStack.'),
  20: boolPtr('allocateLoadBalancerNodePorts', 'Whether a LoadBalancer service gets node ports; defaults to true.'),
  21: strPtr('loadBalancerClass', 'Which load balancer implementation handles a LoadBalancer service; cannot be changed.'),
  22: strPtr('internalTrafficPolicy', "Cluster or Local: whether in-cluster traffic may go to other nodes' endpoints; defaults to Cluster."),
  23: strPtr('trafficDistribution', 'A preference for routing traffic, such as PreferClose (topologically close endpoints).'),
});
export const PortStatus = struct(`${CORE}PortStatus`, 'The state of one port of a load balancer ingress point.', {
  1: i32('port', 'Port number of the service port.'),
  2: str('protocol', 'TCP, UDP or SCTP.'),
  3: strPtr('error', 'Why the port failed, as a CamelCase reason; empty when it works.'),
});
export const LoadBalancerIngress = struct(`${CORE}LoadBalancerIngress`, 'One point where traffic for a LoadBalancer service enters.', {
  1: str('ip', 'IP address of the ingress point.'),
  2: str('hostname', 'DNS name of the ingress point, for load balancers addressed by name.'),
  3: strPtr('ipMode', 'VIP (traffic arrives addressed to the IP) or Proxy (arrives from the load balancer).'),
  4: list('ports', () => PortStatus, 'State of each service port at this ingress point.'),
});
export const LoadBalancerStatus = struct(`${CORE}LoadBalancerStatus`, 'The state of a load balancer.', {
  1: list('ingress', () => LoadBalancerIngress, 'Points where traffic for the service enters the load balancer.'),
});
export const ServiceStatus = struct(
  `${CORE}ServiceStatus`,
  'The observed state of a service: its load balancer.',
  { 1: msg('loadBalancer', () => LoadBalancerStatus, 'The load balancer, for LoadBalancer services.') },
  { unlisted: ['conditions'] },
);
export const Service = struct(`${CORE}Service`, 'A stable virtual IP and DNS name that spread traffic over the pods its selector matches.', {
  1: metadata,
  2: msg('spec', () => ServiceSpec, 'Desired state: ports, selector and type.'),
  3: msg('status', () => ServiceStatus, 'Observed state: the load balancer.'),
});

export const PodCondition = struct(`${CORE}PodCondition`, 'One observed condition of a pod, such as Ready.', {
  1: str('type', 'PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate condition.'),
  2: str('status', 'True, False or Unknown.'),
  3: msg('lastProbeTime', () => Time, 'When the condition was last probed.'),
  4: msg('lastTransitionTime', () => Time, 'When the status last changed.'),
  5: str('reason', 'One-word, CamelCase reason for the last transition.'),
  6: str('message', 'Human-readable details of the last transition.'),
});
export const PodIP = struct(`${CORE}PodIP`, 'One IP address of a pod.', { 1: str('ip', 'The IP address.') });
export const HostIP = struct(`${CORE}HostIP`, 'One IP address of the node a pod runs on.', { 1: str('ip', 'The IP address.') });
// Container statuses are written by kubelets (through JSON); a protobuf Pod from kubectl carries none.
export const PodStatus = struct(
  `${CORE}PodStatus`,
  'The observed state of a pod: its phase, conditions, IPs and start time.',
  {
    1: str('phase', 'Pending, Running, Succeeded, Failed or Unknown: where the pod is in its lifecycle.'),
    2: list('conditions', () => PodCondition, 'Latest observations of the pod, one per type.', byKey('type')),
    3: str('message', 'Human-readable details of why the pod is in this state.'),
    4: str('reason', 'A CamelCase reason for the state, such as Evicted.'),
    11: str('nominatedNodeName', 'Node the scheduler means to place the pod on once preemption frees room.'),
    5: str('hostIP', 'Primary IP of the node the pod runs on.'),
    16: list('hostIPs', () => HostIP, 'IPs of the node, one per family; the first equals hostIP.', { patch: { strategy: 'merge', mergeKey: 'ip' } }),
    6: str('podIP', 'Primary IP of the pod; empty until one is allocated.'),
    12: list('podIPs', () => PodIP, 'IPs of the pod, one per family; the first equals podIP.', byKey('ip')),
    7: msg('startTime', () => Time, 'When the kubelet accepted the pod, before its images were pulled.'),
    9: str('qosClass', "Guaranteed, Burstable or BestEffort, from the containers' requests and limits."),
    14: str('resize', 'Deprecated: progress of a resize of the containers (Proposed, InProgress, Deferred, Infeasible).'),
  },
  { unlisted: ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses', 'resourceClaimStatuses'] },
);
export const Pod = struct(`${CORE}Pod`, 'A group of containers that run together on one node and share its network and volumes.', {
  1: metadata,
  2: msg('spec', () => PodSpec, 'Desired state: containers, volumes, scheduling constraints.'),
  3: msg('status', () => PodStatus, 'Observed state, written by the kubelet and the scheduler.'),
});

export const Binding = struct(`${CORE}Binding`, 'Assigns a pod to a node; the scheduler creates it through the pod\'s binding subresource.', {
  1: metadata,
  2: msg('target', () => ObjectReference, 'The node to bind the pod to.'),
});

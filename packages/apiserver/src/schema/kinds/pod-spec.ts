// core/v1 PodSpec and what hangs off it: containers (ports, env, resources, probes, lifecycle,
// security context, volume mounts), volumes, tolerations, affinity, topology spread, DNS.
// Field numbers follow k8s.io/api core/v1 generated.proto; ptr/inline follow the Go types.
import { bool, boolPtr, i32, i32Ptr, i64, i64Ptr, inline, list, mapOf, msg, str, strPtr, strs, struct } from '../build.ts';
import { IntOrString, LabelSelector, ObjectMeta, Quantity } from './meta.ts';

export const LocalObjectReference = struct('io.k8s.api.core.v1.LocalObjectReference', '', { 1: str('name') });

const ObjectFieldSelector = struct('', '', { 1: str('apiVersion'), 2: str('fieldPath') });
const ResourceFieldSelector = struct('', '', { 1: str('containerName'), 2: str('resource'), 3: msg('divisor', () => Quantity) });
const KeySelector = struct('', '', { 1: inline('localObjectReference', () => LocalObjectReference), 2: str('key'), 3: boolPtr('optional') });
export const EnvVarSource = struct('io.k8s.api.core.v1.EnvVarSource', '', {
  1: msg('fieldRef', () => ObjectFieldSelector),
  2: msg('resourceFieldRef', () => ResourceFieldSelector),
  3: msg('configMapKeyRef', () => KeySelector),
  4: msg('secretKeyRef', () => KeySelector),
});
export const EnvVar = struct('io.k8s.api.core.v1.EnvVar', '', { 1: str('name'), 2: str('value'), 3: msg('valueFrom', () => EnvVarSource) });
const EnvSource = struct('', '', { 1: inline('localObjectReference', () => LocalObjectReference), 2: boolPtr('optional') });
export const EnvFromSource = struct('io.k8s.api.core.v1.EnvFromSource', '', { 1: str('prefix'), 2: msg('configMapRef', () => EnvSource), 3: msg('secretRef', () => EnvSource) });

export const ContainerPort = struct('io.k8s.api.core.v1.ContainerPort', '', { 1: str('name'), 2: i32('hostPort'), 3: i32('containerPort'), 4: str('protocol'), 5: str('hostIP') });

const ResourceClaim = struct('', '', { 1: str('name'), 2: str('request') });
export const ResourceRequirements = struct('io.k8s.api.core.v1.ResourceRequirements', '', {
  1: mapOf('limits', () => Quantity),
  2: mapOf('requests', () => Quantity),
  3: list('claims', () => ResourceClaim),
});
const ContainerResizePolicy = struct('', '', { 1: str('resourceName'), 2: str('restartPolicy') });

export const VolumeMount = struct('io.k8s.api.core.v1.VolumeMount', '', {
  1: str('name'),
  2: bool('readOnly'),
  7: strPtr('recursiveReadOnly'),
  3: str('mountPath'),
  4: str('subPath'),
  5: strPtr('mountPropagation'),
  6: str('subPathExpr'),
});
const VolumeDevice = struct('', '', { 1: str('name'), 2: str('devicePath') });

export const ExecAction = struct('io.k8s.api.core.v1.ExecAction', '', { 1: strs('command') });
const HTTPHeader = struct('', '', { 1: str('name'), 2: str('value') });
export const HTTPGetAction = struct('io.k8s.api.core.v1.HTTPGetAction', '', {
  1: str('path'),
  2: msg('port', () => IntOrString),
  3: str('host'),
  4: str('scheme'),
  5: list('httpHeaders', () => HTTPHeader),
});
export const TCPSocketAction = struct('io.k8s.api.core.v1.TCPSocketAction', '', { 1: msg('port', () => IntOrString), 2: str('host') });
const GRPCAction = struct('', '', { 1: i32('port'), 2: strPtr('service') });
const SleepAction = struct('', '', { 1: i64('seconds') });
const ProbeHandler = struct('', '', {
  1: msg('exec', () => ExecAction),
  2: msg('httpGet', () => HTTPGetAction),
  3: msg('tcpSocket', () => TCPSocketAction),
  4: msg('grpc', () => GRPCAction),
});
export const Probe = struct('io.k8s.api.core.v1.Probe', '', {
  1: inline('handler', () => ProbeHandler),
  2: i32('initialDelaySeconds'),
  3: i32('timeoutSeconds'),
  4: i32('periodSeconds'),
  5: i32('successThreshold'),
  6: i32('failureThreshold'),
  7: i64Ptr('terminationGracePeriodSeconds'),
});
export const LifecycleHandler = struct('io.k8s.api.core.v1.LifecycleHandler', '', {
  1: msg('exec', () => ExecAction),
  2: msg('httpGet', () => HTTPGetAction),
  3: msg('tcpSocket', () => TCPSocketAction),
  4: msg('sleep', () => SleepAction),
});
export const Lifecycle = struct('io.k8s.api.core.v1.Lifecycle', '', { 1: msg('postStart', () => LifecycleHandler), 2: msg('preStop', () => LifecycleHandler) });

const Capabilities = struct('', '', { 1: strs('add'), 2: strs('drop') });
const SELinuxOptions = struct('', '', { 1: str('user'), 2: str('role'), 3: str('type'), 4: str('level') });
const ProfileRef = struct('', '', { 1: str('type'), 2: strPtr('localhostProfile') });
const WindowsSecurityContextOptions = struct('', '', {
  1: strPtr('gmsaCredentialSpecName'),
  2: strPtr('gmsaCredentialSpec'),
  3: strPtr('runAsUserName'),
  4: boolPtr('hostProcess'),
});
export const SecurityContext = struct('io.k8s.api.core.v1.SecurityContext', '', {
  1: msg('capabilities', () => Capabilities),
  2: boolPtr('privileged'),
  3: msg('seLinuxOptions', () => SELinuxOptions),
  10: msg('windowsOptions', () => WindowsSecurityContextOptions),
  4: i64Ptr('runAsUser'),
  8: i64Ptr('runAsGroup'),
  5: boolPtr('runAsNonRoot'),
  6: boolPtr('readOnlyRootFilesystem'),
  7: boolPtr('allowPrivilegeEscalation'),
  9: strPtr('procMount'),
  11: msg('seccompProfile', () => ProfileRef),
  12: msg('appArmorProfile', () => ProfileRef),
});
const Sysctl = struct('', '', { 1: str('name'), 2: str('value') });
export const PodSecurityContext = struct('io.k8s.api.core.v1.PodSecurityContext', '', {
  1: msg('seLinuxOptions', () => SELinuxOptions),
  8: msg('windowsOptions', () => WindowsSecurityContextOptions),
  2: i64Ptr('runAsUser'),
  6: i64Ptr('runAsGroup'),
  3: boolPtr('runAsNonRoot'),
  4: i64('supplementalGroups', { repeated: true }),
  12: strPtr('supplementalGroupsPolicy'),
  5: i64Ptr('fsGroup'),
  7: list('sysctls', () => Sysctl),
  9: strPtr('fsGroupChangePolicy'),
  10: msg('seccompProfile', () => ProfileRef),
  11: msg('appArmorProfile', () => ProfileRef),
  13: strPtr('seLinuxChangePolicy'),
});

export const Container = struct('io.k8s.api.core.v1.Container', '', {
  1: str('name'),
  2: str('image'),
  3: strs('command'),
  4: strs('args'),
  5: str('workingDir'),
  6: list('ports', () => ContainerPort),
  19: list('envFrom', () => EnvFromSource),
  7: list('env', () => EnvVar),
  8: msg('resources', () => ResourceRequirements),
  23: list('resizePolicy', () => ContainerResizePolicy),
  24: strPtr('restartPolicy'),
  9: list('volumeMounts', () => VolumeMount),
  21: list('volumeDevices', () => VolumeDevice),
  10: msg('livenessProbe', () => Probe),
  11: msg('readinessProbe', () => Probe),
  22: msg('startupProbe', () => Probe),
  12: msg('lifecycle', () => Lifecycle),
  13: str('terminationMessagePath'),
  20: str('terminationMessagePolicy'),
  14: str('imagePullPolicy'),
  15: msg('securityContext', () => SecurityContext),
  16: bool('stdin'),
  17: bool('stdinOnce'),
  18: bool('tty'),
});
// EphemeralContainerCommon carries Container's field numbers and is inlined.
export const EphemeralContainer = struct('io.k8s.api.core.v1.EphemeralContainer', '', { 1: inline('ephemeralContainerCommon', () => Container), 2: str('targetContainerName') });

// Volumes: the sources kemu's kubelets and validation know about; others are skipped as unknown.
export const KeyToPath = struct('io.k8s.api.core.v1.KeyToPath', '', { 1: str('key'), 2: str('path'), 3: i32Ptr('mode') });
const HostPathVolumeSource = struct('', '', { 1: str('path'), 2: strPtr('type') });
const EmptyDirVolumeSource = struct('', '', { 1: str('medium'), 2: msg('sizeLimit', () => Quantity) });
const SecretVolumeSource = struct('', '', { 1: str('secretName'), 2: list('items', () => KeyToPath), 3: i32Ptr('defaultMode'), 4: boolPtr('optional') });
const ConfigMapVolumeSource = struct('', '', {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: list('items', () => KeyToPath),
  3: i32Ptr('defaultMode'),
  4: boolPtr('optional'),
});
const PersistentVolumeClaimVolumeSource = struct('', '', { 1: str('claimName'), 2: bool('readOnly') });
const DownwardAPIVolumeFile = struct('', '', {
  1: str('path'),
  2: msg('fieldRef', () => ObjectFieldSelector),
  3: msg('resourceFieldRef', () => ResourceFieldSelector),
  4: i32Ptr('mode'),
});
const DownwardAPIVolumeSource = struct('', '', { 1: list('items', () => DownwardAPIVolumeFile), 2: i32Ptr('defaultMode') });
const KeyProjection = struct('', '', { 1: inline('localObjectReference', () => LocalObjectReference), 2: list('items', () => KeyToPath), 4: boolPtr('optional') });
const ServiceAccountTokenProjection = struct('', '', { 1: str('audience'), 2: i64Ptr('expirationSeconds'), 3: str('path') });
const VolumeProjection = struct('', '', {
  1: msg('secret', () => KeyProjection),
  2: msg('downwardAPI', () => struct('', '', { 1: list('items', () => DownwardAPIVolumeFile) })),
  3: msg('configMap', () => KeyProjection),
  4: msg('serviceAccountToken', () => ServiceAccountTokenProjection),
}, { unlisted: ['clusterTrustBundle'] });
const ProjectedVolumeSource = struct('', '', { 1: list('sources', () => VolumeProjection), 2: i32Ptr('defaultMode') });
const NFSVolumeSource = struct('', '', { 1: str('server'), 2: str('path'), 3: bool('readOnly') });
const CSIVolumeSource = struct('', '', {
  1: str('driver'),
  2: boolPtr('readOnly'),
  3: strPtr('fsType'),
  4: mapOf('volumeAttributes', 'string'),
  5: msg('nodePublishSecretRef', () => LocalObjectReference),
});
const ImageVolumeSource = struct('', '', { 1: str('reference'), 2: str('pullPolicy') });
export const VolumeSource = struct('', '', {
  1: msg('hostPath', () => HostPathVolumeSource),
  2: msg('emptyDir', () => EmptyDirVolumeSource),
  6: msg('secret', () => SecretVolumeSource),
  7: msg('nfs', () => NFSVolumeSource),
  10: msg('persistentVolumeClaim', () => PersistentVolumeClaimVolumeSource),
  16: msg('downwardAPI', () => DownwardAPIVolumeSource),
  19: msg('configMap', () => ConfigMapVolumeSource),
  26: msg('projected', () => ProjectedVolumeSource),
  28: msg('csi', () => CSIVolumeSource),
  30: msg('image', () => ImageVolumeSource),
}, { unlisted: 'any' });
export const Volume = struct('io.k8s.api.core.v1.Volume', '', { 1: str('name'), 2: inline('volumeSource', () => VolumeSource) });

export const Toleration = struct('io.k8s.api.core.v1.Toleration', '', { 1: str('key'), 2: str('operator'), 3: str('value'), 4: str('effect'), 5: i64Ptr('tolerationSeconds') });

const NodeSelectorRequirement = struct('', '', { 1: str('key'), 2: str('operator'), 3: strs('values') });
const NodeSelectorTerm = struct('', '', {
  1: list('matchExpressions', () => NodeSelectorRequirement),
  2: list('matchFields', () => NodeSelectorRequirement),
});
const NodeSelector = struct('', '', { 1: list('nodeSelectorTerms', () => NodeSelectorTerm) });
const PreferredSchedulingTerm = struct('', '', { 1: i32('weight'), 2: msg('preference', () => NodeSelectorTerm) });
export const NodeAffinity = struct('io.k8s.api.core.v1.NodeAffinity', '', {
  1: msg('requiredDuringSchedulingIgnoredDuringExecution', () => NodeSelector),
  2: list('preferredDuringSchedulingIgnoredDuringExecution', () => PreferredSchedulingTerm),
});
const PodAffinityTerm = struct('', '', {
  1: msg('labelSelector', () => LabelSelector),
  2: strs('namespaces'),
  3: str('topologyKey'),
  4: msg('namespaceSelector', () => LabelSelector),
  5: strs('matchLabelKeys'),
  6: strs('mismatchLabelKeys'),
});
const WeightedPodAffinityTerm = struct('', '', { 1: i32('weight'), 2: msg('podAffinityTerm', () => PodAffinityTerm) });
export const PodAffinity = struct('io.k8s.api.core.v1.PodAffinity', '', {
  1: list('requiredDuringSchedulingIgnoredDuringExecution', () => PodAffinityTerm),
  2: list('preferredDuringSchedulingIgnoredDuringExecution', () => WeightedPodAffinityTerm),
});
export const Affinity = struct('io.k8s.api.core.v1.Affinity', '', {
  1: msg('nodeAffinity', () => NodeAffinity),
  2: msg('podAffinity', () => PodAffinity),
  3: msg('podAntiAffinity', () => PodAffinity),
});
export const TopologySpreadConstraint = struct('io.k8s.api.core.v1.TopologySpreadConstraint', '', {
  1: i32('maxSkew'),
  2: str('topologyKey'),
  3: str('whenUnsatisfiable'),
  4: msg('labelSelector', () => LabelSelector),
  5: i32Ptr('minDomains'),
  6: strPtr('nodeAffinityPolicy'),
  7: strPtr('nodeTaintsPolicy'),
  8: strs('matchLabelKeys'),
});

const PodDNSConfigOption = struct('', '', { 1: str('name'), 2: strPtr('value') });
export const PodDNSConfig = struct('io.k8s.api.core.v1.PodDNSConfig', '', { 1: strs('nameservers'), 2: strs('searches'), 3: list('options', () => PodDNSConfigOption) });
export const HostAlias = struct('io.k8s.api.core.v1.HostAlias', '', { 1: str('ip'), 2: strs('hostnames') });
const PodReadinessGate = struct('', '', { 1: str('conditionType') });
const PodOS = struct('', '', { 1: str('name') });
const PodSchedulingGate = struct('', '', { 1: str('name') });

export const PodSpec = struct('io.k8s.api.core.v1.PodSpec', '', {
  1: list('volumes', () => Volume),
  20: list('initContainers', () => Container),
  2: list('containers', () => Container),
  34: list('ephemeralContainers', () => EphemeralContainer),
  3: str('restartPolicy'),
  4: i64Ptr('terminationGracePeriodSeconds'),
  5: i64Ptr('activeDeadlineSeconds'),
  6: str('dnsPolicy'),
  7: mapOf('nodeSelector', 'string'),
  8: str('serviceAccountName'),
  9: str('serviceAccount'),
  21: boolPtr('automountServiceAccountToken'),
  10: str('nodeName'),
  11: bool('hostNetwork'),
  12: bool('hostPID'),
  13: bool('hostIPC'),
  27: boolPtr('shareProcessNamespace'),
  14: msg('securityContext', () => PodSecurityContext),
  15: list('imagePullSecrets', () => LocalObjectReference),
  16: str('hostname'),
  17: str('subdomain'),
  18: msg('affinity', () => Affinity),
  19: str('schedulerName'),
  22: list('tolerations', () => Toleration),
  23: list('hostAliases', () => HostAlias),
  24: str('priorityClassName'),
  25: i32Ptr('priority'),
  26: msg('dnsConfig', () => PodDNSConfig),
  28: list('readinessGates', () => PodReadinessGate),
  29: strPtr('runtimeClassName'),
  30: boolPtr('enableServiceLinks'),
  31: strPtr('preemptionPolicy'),
  32: mapOf('overhead', () => Quantity),
  33: list('topologySpreadConstraints', () => TopologySpreadConstraint),
  35: boolPtr('setHostnameAsFQDN'),
  36: msg('os', () => PodOS),
  37: boolPtr('hostUsers'),
  38: list('schedulingGates', () => PodSchedulingGate),
  40: msg('resources', () => ResourceRequirements),
}, { unlisted: ['resourceClaims'] });

export const PodTemplateSpec = struct('io.k8s.api.core.v1.PodTemplateSpec', '', { 1: msg('metadata', () => ObjectMeta), 2: msg('spec', () => PodSpec) });

// core/v1 PodSpec and what hangs off it: containers (ports, env, resources, probes, lifecycle, security
// context, volume mounts), volumes, tolerations, affinity, topology spread, DNS. Field numbers follow k8s.io/api
// core/v1 generated.proto; ptr/inline and list, map and struct semantics follow the Go types and their tags.
import { bool, boolPtr, byKey, i32, i32Ptr, i64, i64Ptr, inline, list, mapList, mapOf, msg, retainKeys, str, strPtr, strs, struct, withOpts } from '../build.ts';
import { IntOrString, LabelSelector, ObjectMeta, Quantity } from './meta.ts';

const V1 = 'io.k8s.api.core.v1.';

export const LocalObjectReference = struct(
  `${V1}LocalObjectReference`,
  'Names another object in the same namespace.',
  { 1: str('name', 'Name of the object.') },
  { atomic: true },
);

// Environment.
export const ObjectFieldSelector = struct(
  `${V1}ObjectFieldSelector`,
  'Selects a field of the pod, such as metadata.name or status.podIP.',
  {
    1: str('apiVersion', 'API version the fieldPath is written in; defaults to v1.'),
    2: str('fieldPath', 'Path of the pod field to select.'),
  },
  { atomic: true },
);
export const ResourceFieldSelector = struct(
  `${V1}ResourceFieldSelector`,
  "Selects a container's resource request or limit, such as limits.cpu or requests.memory.",
  {
    1: str('containerName', 'Container whose resources to read; required for volumes, optional for env vars.'),
    2: str('resource', 'The request or limit to select, such as limits.memory.'),
    3: msg('divisor', () => Quantity, 'Unit the value is divided by before it is exposed (1m, 1Mi…); defaults to 1.'),
  },
  { atomic: true },
);
export const ConfigMapKeySelector = struct(
  `${V1}ConfigMapKeySelector`,
  'Selects one key of a ConfigMap in the pod namespace.',
  {
    1: inline('localObjectReference', () => LocalObjectReference),
    2: str('key', 'The key whose value to use.'),
    3: boolPtr('optional', 'When true, a missing ConfigMap or key is not an error.'),
  },
  { atomic: true },
);
export const SecretKeySelector = struct(
  `${V1}SecretKeySelector`,
  'Selects one key of a Secret in the pod namespace.',
  {
    1: inline('localObjectReference', () => LocalObjectReference),
    2: str('key', 'The key whose value to use.'),
    3: boolPtr('optional', 'When true, a missing Secret or key is not an error.'),
  },
  { atomic: true },
);
export const EnvVarSource = struct(`${V1}EnvVarSource`, "Where an environment variable's value comes from; set exactly one field.", {
  1: msg('fieldRef', () => ObjectFieldSelector, 'A pod field: metadata.name, metadata.namespace, spec.nodeName, status.podIP and others.'),
  2: msg('resourceFieldRef', () => ResourceFieldSelector, "A container's resource limit or request."),
  3: msg('configMapKeyRef', () => ConfigMapKeySelector, 'A key of a ConfigMap.'),
  4: msg('secretKeyRef', () => SecretKeySelector, 'A key of a Secret.'),
});
export const EnvVar = struct(`${V1}EnvVar`, 'An environment variable set in a container.', {
  1: str('name', 'Name of the variable.'),
  2: str('value', 'Value of the variable; $(VAR) expands earlier variables and $$ escapes it. Defaults to "".'),
  3: msg('valueFrom', () => EnvVarSource, 'Takes the value from another source; not allowed with a non-empty value.'),
});
export const ConfigMapEnvSource = struct(`${V1}ConfigMapEnvSource`, 'A ConfigMap whose keys all become environment variables.', {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: boolPtr('optional', 'When true, a missing ConfigMap is not an error.'),
});
export const SecretEnvSource = struct(`${V1}SecretEnvSource`, 'A Secret whose keys all become environment variables.', {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: boolPtr('optional', 'When true, a missing Secret is not an error.'),
});
export const EnvFromSource = struct(`${V1}EnvFromSource`, 'A ConfigMap or Secret to take a set of environment variables from.', {
  1: str('prefix', 'Prefix added to each key to make the variable name.'),
  2: msg('configMapRef', () => ConfigMapEnvSource, 'The ConfigMap to read.'),
  3: msg('secretRef', () => SecretEnvSource, 'The Secret to read.'),
});

export const ContainerPort = struct(`${V1}ContainerPort`, 'A network port a container listens on.', {
  1: str('name', 'Name for the port (an IANA service name, at most 15 characters), unique in the pod; Services refer to it.'),
  2: i32('hostPort', 'Port to open on the node and forward to containerPort; most pods leave it unset.'),
  3: i32('containerPort', "Port number on the pod's IP address, 1-65535."),
  4: str('protocol', 'TCP, UDP or SCTP; defaults to TCP.'),
  5: str('hostIP', 'Node IP address to bind the hostPort to.'),
});

// Resources.
export const ResourceClaim = struct(`${V1}ResourceClaim`, "One of the pod's resource claims that a container uses.", {
  1: str('name', "Name of an entry in the pod's spec.resourceClaims."),
  2: str('request', 'The one request of the claim to use; empty uses the whole claim.'),
});
export const ResourceRequirements = struct(`${V1}ResourceRequirements`, 'Compute resources requested and the limits not to exceed.', {
  1: mapOf('limits', () => Quantity, 'Most of each resource (cpu, memory…) that may be used.'),
  2: mapOf('requests', () => Quantity, 'Amount of each resource reserved for scheduling; defaults to the limit when only that is set.'),
  3: list('claims', () => ResourceClaim, 'Dynamically allocated resource claims of the pod that this container uses.', mapList(['name'])),
});
export const ContainerResizePolicy = struct(`${V1}ContainerResizePolicy`, 'How an in-place change of one resource is applied to a container.', {
  1: str('resourceName', 'The resource this policy is for: cpu or memory.'),
  2: str('restartPolicy', 'NotRequired (default) resizes the running container; RestartContainer restarts it.'),
});

// Volume mounts.
export const VolumeMount = struct(`${V1}VolumeMount`, "A pod volume mounted into a container's filesystem.", {
  1: str('name', 'Name of the pod volume to mount.'),
  2: bool('readOnly', 'Mounts the volume read-only; defaults to false.'),
  7: strPtr('recursiveReadOnly', 'Disabled (default), IfPossible or Enabled: whether submounts are read-only too (needs readOnly).'),
  3: str('mountPath', "Path in the container to mount at; must not contain ':'."),
  4: str('subPath', "Path within the volume to mount instead of its root; defaults to '' (the root)."),
  5: strPtr('mountPropagation', 'None (default), HostToContainer or Bidirectional: how mounts propagate between host and container.'),
  6: str('subPathExpr', 'Like subPath, with $(VAR) expanded from the container environment; not with subPath.'),
});
export const VolumeDevice = struct(`${V1}VolumeDevice`, 'A raw block volume exposed to a container as a device.', {
  1: str('name', "Name of a persistentVolumeClaim volume of the pod."),
  2: str('devicePath', 'Path of the device inside the container.'),
});

// Probes and lifecycle handlers.
export const ExecAction = struct(`${V1}ExecAction`, 'Runs a command inside the container.', {
  1: strs('command', 'Command and arguments, run directly (not in a shell); exit status 0 means success.'),
});
export const HTTPHeader = struct(`${V1}HTTPHeader`, 'A header sent with an HTTP probe request.', {
  1: str('name', 'Header name.'),
  2: str('value', 'Header value.'),
});
export const HTTPGetAction = struct(`${V1}HTTPGetAction`, 'Sends an HTTP GET; a status from 200 to 399 means success.', {
  1: str('path', 'Path to request.'),
  2: msg('port', () => IntOrString, 'Port number or container port name to connect to.'),
  3: str('host', 'Host to connect to; defaults to the pod IP. Set a Host header instead for virtual hosts.'),
  4: str('scheme', 'HTTP (default) or HTTPS; HTTPS skips certificate verification.'),
  5: list('httpHeaders', () => HTTPHeader, 'Extra headers to send.'),
});
export const TCPSocketAction = struct(`${V1}TCPSocketAction`, 'Opens a TCP connection; connecting means success.', {
  1: msg('port', () => IntOrString, 'Port number or container port name to connect to.'),
  2: str('host', 'Host to connect to; defaults to the pod IP.'),
});
export const GRPCAction = struct(`${V1}GRPCAction`, 'Calls the gRPC health checking service; SERVING means success.', {
  1: i32('port', 'Port number of the gRPC service, 1-65535.'),
  2: strPtr('service', 'Service name to ask about; empty (the default) asks about the server as a whole.'),
});
export const SleepAction = struct(`${V1}SleepAction`, 'Waits a number of seconds.', {
  1: i64('seconds', 'Seconds to sleep.'),
});
export const ProbeHandler = struct(`${V1}ProbeHandler`, 'The check a probe runs; set exactly one field.', {
  1: msg('exec', () => ExecAction, 'Runs a command in the container.'),
  2: msg('httpGet', () => HTTPGetAction, 'Sends an HTTP GET request.'),
  3: msg('tcpSocket', () => TCPSocketAction, 'Opens a TCP connection.'),
  4: msg('grpc', () => GRPCAction, 'Calls the gRPC health checking service.'),
});
export const Probe = struct(`${V1}Probe`, 'A periodic check the kubelet runs against a container, and when it counts as passed or failed.', {
  1: inline('handler', () => ProbeHandler),
  2: i32('initialDelaySeconds', 'Seconds after the container starts before the first check; defaults to 0.'),
  3: i32('timeoutSeconds', 'Seconds after which a check times out; defaults to 1, at least 1.'),
  4: i32('periodSeconds', 'Seconds between checks; defaults to 10, at least 1.'),
  5: i32('successThreshold', 'Successes in a row, after a failure, to count as passed; defaults to 1, and must be 1 for liveness and startup.'),
  6: i32('failureThreshold', 'Failures in a row to count as failed; defaults to 3, at least 1.'),
  7: i64Ptr('terminationGracePeriodSeconds', "Grace period for stopping the container when this probe fails; overrides the pod's value."),
});
export const LifecycleHandler = struct(`${V1}LifecycleHandler`, 'An action run at a container lifecycle event; set exactly one field.', {
  1: msg('exec', () => ExecAction, 'Runs a command in the container.'),
  2: msg('httpGet', () => HTTPGetAction, 'Sends an HTTP GET request.'),
  3: msg('tcpSocket', () => TCPSocketAction, 'Deprecated and ignored: kept for compatibility only.'),
  4: msg('sleep', () => SleepAction, 'Waits a number of seconds.'),
});
export const Lifecycle = struct(`${V1}Lifecycle`, 'Actions the kubelet runs when a container starts and before it stops.', {
  1: msg('postStart', () => LifecycleHandler, 'Runs right after the container is created; if it fails, the container is restarted per policy.'),
  2: msg('preStop', () => LifecycleHandler, 'Runs before the container is stopped, within the termination grace period.'),
});

// Security contexts.
export const Capabilities = struct(`${V1}Capabilities`, 'Linux capabilities to add to or drop from the container runtime defaults.', {
  1: strs('add', 'Capabilities to add, such as NET_ADMIN.'),
  2: strs('drop', 'Capabilities to remove, such as ALL.'),
});
export const SELinuxOptions = struct(`${V1}SELinuxOptions`, 'The SELinux label applied to a container.', {
  1: str('user', 'SELinux user of the label.'),
  2: str('role', 'SELinux role of the label.'),
  3: str('type', 'SELinux type of the label.'),
  4: str('level', 'SELinux level of the label.'),
});
export const SeccompProfile = struct(`${V1}SeccompProfile`, 'The seccomp profile that filters system calls.', {
  1: str('type', 'RuntimeDefault, Unconfined or Localhost (a profile file on the node).'),
  2: strPtr('localhostProfile', "Profile file, relative to the kubelet's seccomp directory; only with type Localhost."),
});
export const AppArmorProfile = struct(`${V1}AppArmorProfile`, 'The AppArmor profile that confines a container.', {
  1: str('type', 'RuntimeDefault, Unconfined or Localhost (a profile loaded on the node).'),
  2: strPtr('localhostProfile', 'Name of the profile loaded on the node; only with type Localhost.'),
});
export const WindowsSecurityContextOptions = struct(`${V1}WindowsSecurityContextOptions`, 'Options for containers on Windows nodes.', {
  1: strPtr('gmsaCredentialSpecName', 'Name of the GMSACredentialSpec object to use.'),
  2: strPtr('gmsaCredentialSpec', 'Contents of the GMSA credential spec, filled in by the GMSA admission webhook.'),
  3: strPtr('runAsUserName', 'Windows user to run the entrypoint as; defaults to the image user.'),
  4: boolPtr('hostProcess', 'Runs the container as a Windows HostProcess container; needs hostNetwork.'),
});
export const SecurityContext = struct(`${V1}SecurityContext`, "Security settings of one container; they override the pod's securityContext.", {
  1: msg('capabilities', () => Capabilities, 'Capabilities to add and drop; not on Windows.'),
  2: boolPtr('privileged', 'Runs the container with nearly full access to the host; defaults to false.'),
  3: msg('seLinuxOptions', () => SELinuxOptions, "SELinux label of the container; defaults to a random one from the runtime."),
  10: msg('windowsOptions', () => WindowsSecurityContextOptions, 'Windows-specific settings.'),
  4: i64Ptr('runAsUser', "UID to run the entrypoint as; defaults to the image's user."),
  8: i64Ptr('runAsGroup', "GID to run the entrypoint as; defaults to the runtime's default."),
  5: boolPtr('runAsNonRoot', 'When true, the kubelet refuses to start the container if it would run as UID 0.'),
  6: boolPtr('readOnlyRootFilesystem', "Mounts the container's root filesystem read-only; defaults to false."),
  7: boolPtr('allowPrivilegeEscalation', 'Whether a process can gain more privileges than its parent; true when privileged or with CAP_SYS_ADMIN.'),
  9: strPtr('procMount', 'Default (masked /proc paths) or Unmasked.'),
  11: msg('seccompProfile', () => SeccompProfile, "Seccomp profile of the container; overrides the pod's."),
  12: msg('appArmorProfile', () => AppArmorProfile, "AppArmor profile of the container; overrides the pod's."),
});
export const Sysctl = struct(`${V1}Sysctl`, 'A kernel parameter set for the pod.', {
  1: str('name', 'Name of the parameter, such as net.ipv4.ip_local_port_range.'),
  2: str('value', 'Value to set.'),
});
export const PodSecurityContext = struct(`${V1}PodSecurityContext`, "Security settings for all of a pod's containers and volumes.", {
  1: msg('seLinuxOptions', () => SELinuxOptions, 'SELinux label for all containers; a container may set its own.'),
  8: msg('windowsOptions', () => WindowsSecurityContextOptions, 'Windows-specific settings for all containers.'),
  2: i64Ptr('runAsUser', "UID to run every container's entrypoint as; defaults to the image's user."),
  6: i64Ptr('runAsGroup', "GID to run every container's entrypoint as; defaults to the runtime's default."),
  3: boolPtr('runAsNonRoot', 'When true, the kubelet refuses to start a container that would run as UID 0.'),
  4: i64('supplementalGroups', 'Extra GIDs given to the first process of each container.', { repeated: true }),
  12: strPtr('supplementalGroupsPolicy', 'Merge (default) adds the groups from the image; Strict uses only the ones listed here.'),
  5: i64Ptr('fsGroup', 'GID that owns supported volumes and is added to every container process.'),
  7: list('sysctls', () => Sysctl, 'Namespaced kernel parameters set for the pod.'),
  9: strPtr('fsGroupChangePolicy', 'Always (default) or OnRootMismatch: when volume ownership is changed to fsGroup.'),
  10: msg('seccompProfile', () => SeccompProfile, 'Seccomp profile for all containers.'),
  11: msg('appArmorProfile', () => AppArmorProfile, 'AppArmor profile for all containers.'),
  13: strPtr('seLinuxChangePolicy', 'MountOption or Recursive: how the SELinux label is applied to volumes.'),
});

// Containers.
const PORTS = withOpts(byKey('containerPort', 'protocol'), {
  listType: { type: 'map', keys: ['containerPort', 'protocol'], keyDefaults: { protocol: 'TCP' } },
});
export const Container = struct(`${V1}Container`, 'A container to run in a pod: its image, command, environment, resources and probes.', {
  1: str('name', 'Name of the container, a DNS label unique in the pod; cannot be changed.'),
  2: str('image', 'Container image to run, by tag (nginx:1.27) or by digest (nginx@sha256:…).'),
  3: strs('command', "Entrypoint, not run in a shell; replaces the image's ENTRYPOINT. $(VAR) expands variables."),
  4: strs('args', "Arguments to the entrypoint; replace the image's CMD. $(VAR) expands variables."),
  5: str('workingDir', "Working directory of the process; defaults to the image's."),
  6: list('ports', () => ContainerPort, 'Ports the container listens on; mostly informational, but named ports can be referred to.', PORTS),
  19: list('envFrom', () => EnvFromSource, 'ConfigMaps and Secrets whose keys become variables; env wins for a name set twice.'),
  7: list('env', () => EnvVar, 'Environment variables to set in the container.', byKey('name')),
  8: msg('resources', () => ResourceRequirements, 'CPU, memory and other resources the container requests and is limited to.'),
  23: list('resizePolicy', () => ContainerResizePolicy, 'Per resource, whether changing it in place restarts the container.'),
  24: strPtr('restartPolicy', 'Always on an init container makes it a sidecar that keeps running beside the app containers.'),
  9: list('volumeMounts', () => VolumeMount, "Pod volumes to mount into the container's filesystem.", byKey('mountPath')),
  21: list('volumeDevices', () => VolumeDevice, 'Block volumes to expose to the container as devices.', byKey('devicePath')),
  10: msg('livenessProbe', () => Probe, 'Check that the container is alive; the container is restarted when it fails.'),
  11: msg('readinessProbe', () => Probe, 'Check that the container can serve; while it fails, the pod is left out of Service endpoints.'),
  22: msg('startupProbe', () => Probe, 'Check that the container has started; the other probes wait for it, and failing restarts the container.'),
  12: msg('lifecycle', () => Lifecycle, 'Actions run after the container starts and before it stops.'),
  13: str('terminationMessagePath', 'File whose contents become the termination message; defaults to /dev/termination-log.'),
  20: str('terminationMessagePolicy', 'File (default), or FallbackToLogsOnError to use the log tail when the file is empty after a failure.'),
  14: str('imagePullPolicy', 'Always, Never or IfNotPresent; defaults to Always for :latest or untagged images, else IfNotPresent.'),
  15: msg('securityContext', () => SecurityContext, "Security settings of this container; they override the pod's."),
  16: bool('stdin', 'Keeps stdin open for attaching (kubectl attach -i); otherwise reads from stdin get EOF.'),
  17: bool('stdinOnce', 'Closes stdin when the first attached session ends; needs stdin.'),
  18: bool('tty', 'Allocates a terminal for the container; needs stdin.'),
});

const NOT_EPHEMERAL = 'Not allowed for ephemeral containers.';
/** Container's fields, as an ephemeral container has them (several are refused by validation). */
export const EphemeralContainerCommon = struct(`${V1}EphemeralContainerCommon`, 'The container fields of an ephemeral container.', {
  ...Container.fields,
  1: str('name', "Name of the ephemeral container, unique among all the pod's containers."),
  6: list('ports', () => ContainerPort, NOT_EPHEMERAL, PORTS),
  8: msg('resources', () => ResourceRequirements, 'Not allowed: ephemeral containers use the resources already given to the pod.'),
  23: list('resizePolicy', () => ContainerResizePolicy, NOT_EPHEMERAL),
  24: strPtr('restartPolicy', 'Not allowed: ephemeral containers are never restarted.'),
  10: msg('livenessProbe', () => Probe, NOT_EPHEMERAL),
  11: msg('readinessProbe', () => Probe, NOT_EPHEMERAL),
  22: msg('startupProbe', () => Probe, NOT_EPHEMERAL),
  12: msg('lifecycle', () => Lifecycle, NOT_EPHEMERAL),
});
export const EphemeralContainer = struct(
  `${V1}EphemeralContainer`,
  'A container added to a running pod for troubleshooting (kubectl debug); it is never restarted or removed.',
  {
    1: inline('ephemeralContainerCommon', () => EphemeralContainerCommon),
    2: str('targetContainerName', "Container whose process namespace to join, if the runtime supports it; empty shares the pod's."),
  },
);

// Volumes: the sources kemu's kubelets and validation know about; others are accepted unchecked.
export const KeyToPath = struct(`${V1}KeyToPath`, 'Maps one key of a ConfigMap or Secret to a file in the volume.', {
  1: str('key', 'The key to project.'),
  2: str('path', "Relative file path to write the key to; may not contain '..'."),
  3: i32Ptr('mode', "Permission bits of the file (0000-0777); defaults to the volume's defaultMode."),
});
export const HostPathVolumeSource = struct(`${V1}HostPathVolumeSource`, "A file or directory on the node's filesystem.", {
  1: str('path', 'Path on the node; a symlink is followed.'),
  2: strPtr('type', '"" (default, no check), DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.'),
});
export const EmptyDirVolumeSource = struct(`${V1}EmptyDirVolumeSource`, 'An empty directory created for the pod and deleted with it.', {
  1: str('medium', '"" (default) uses the node\'s disk; Memory uses a tmpfs.'),
  2: msg('sizeLimit', () => Quantity, 'Most storage the volume may use; the pod is evicted past it.'),
});
export const SecretVolumeSource = struct(`${V1}SecretVolumeSource`, "A Secret's keys as files.", {
  1: str('secretName', 'Name of the Secret in the pod namespace.'),
  2: list('items', () => KeyToPath, 'Keys to project and where; by default every key becomes a file named after it.'),
  3: i32Ptr('defaultMode', 'Permission bits of the files; defaults to 0644.'),
  4: boolPtr('optional', 'When true, a missing Secret or key is not an error.'),
});
export const ConfigMapVolumeSource = struct(`${V1}ConfigMapVolumeSource`, "A ConfigMap's keys as files.", {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: list('items', () => KeyToPath, 'Keys to project and where; by default every key becomes a file named after it.'),
  3: i32Ptr('defaultMode', 'Permission bits of the files; defaults to 0644.'),
  4: boolPtr('optional', 'When true, a missing ConfigMap or key is not an error.'),
});
export const PersistentVolumeClaimVolumeSource = struct(`${V1}PersistentVolumeClaimVolumeSource`, 'The volume bound to a PersistentVolumeClaim in the pod namespace.', {
  1: str('claimName', 'Name of the PersistentVolumeClaim.'),
  2: bool('readOnly', 'Mounts the volume read-only; defaults to false.'),
});
export const DownwardAPIVolumeFile = struct(`${V1}DownwardAPIVolumeFile`, 'A file holding a pod field or a container resource value.', {
  1: str('path', "Relative path of the file; may not contain '..'."),
  2: msg('fieldRef', () => ObjectFieldSelector, 'The pod field to write: metadata.name, metadata.labels, metadata.annotations and others.'),
  3: msg('resourceFieldRef', () => ResourceFieldSelector, "A container's resource limit or request to write."),
  4: i32Ptr('mode', "Permission bits of the file (0000-0777); defaults to the volume's defaultMode."),
});
export const DownwardAPIVolumeSource = struct(`${V1}DownwardAPIVolumeSource`, 'Files holding information about the pod itself.', {
  1: list('items', () => DownwardAPIVolumeFile, 'The files to write.'),
  2: i32Ptr('defaultMode', 'Permission bits of the files; defaults to 0644.'),
});
export const SecretProjection = struct(`${V1}SecretProjection`, "A Secret's keys in a projected volume.", {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: list('items', () => KeyToPath, 'Keys to project and where; by default every key becomes a file named after it.'),
  4: boolPtr('optional', 'When true, a missing Secret or key is not an error.'),
});
export const ConfigMapProjection = struct(`${V1}ConfigMapProjection`, "A ConfigMap's keys in a projected volume.", {
  1: inline('localObjectReference', () => LocalObjectReference),
  2: list('items', () => KeyToPath, 'Keys to project and where; by default every key becomes a file named after it.'),
  4: boolPtr('optional', 'When true, a missing ConfigMap or key is not an error.'),
});
export const DownwardAPIProjection = struct(`${V1}DownwardAPIProjection`, 'Pod information in a projected volume.', {
  1: list('items', () => DownwardAPIVolumeFile, 'The files to write.'),
});
export const ServiceAccountTokenProjection = struct(
  `${V1}ServiceAccountTokenProjection`,
  "A token of the pod's service account, refreshed by the kubelet before it expires.",
  {
    1: str('audience', "Audience the token is for; defaults to the API server's identifier."),
    2: i64Ptr('expirationSeconds', 'Requested lifetime of the token in seconds; defaults to 3600, at least 600.'),
    3: str('path', 'Relative path of the token file.'),
  },
);
export const VolumeProjection = struct(
  `${V1}VolumeProjection`,
  'One source of a projected volume; set exactly one field.',
  {
    1: msg('secret', () => SecretProjection, 'Keys of a Secret.'),
    2: msg('downwardAPI', () => DownwardAPIProjection, 'Information about the pod.'),
    3: msg('configMap', () => ConfigMapProjection, 'Keys of a ConfigMap.'),
    4: msg('serviceAccountToken', () => ServiceAccountTokenProjection, 'A service account token.'),
  },
  { unlisted: ['clusterTrustBundle'] },
);
export const ProjectedVolumeSource = struct(`${V1}ProjectedVolumeSource`, 'Several sources combined into one directory.', {
  1: list('sources', () => VolumeProjection, 'The sources to combine.'),
  2: i32Ptr('defaultMode', 'Permission bits of the files; defaults to 0644.'),
});
export const NFSVolumeSource = struct(`${V1}NFSVolumeSource`, 'An NFS export mounted into the pod.', {
  1: str('server', 'Host name or IP address of the NFS server.'),
  2: str('path', 'Path exported by the server.'),
  3: bool('readOnly', 'Mounts the export read-only; defaults to false.'),
});
export const CSIVolumeSource = struct(`${V1}CSIVolumeSource`, 'An ephemeral volume provided by a CSI driver.', {
  1: str('driver', 'Name of the CSI driver.'),
  2: boolPtr('readOnly', 'Mounts the volume read-only; defaults to false.'),
  3: strPtr('fsType', 'Filesystem type to mount, such as ext4; the driver chooses when empty.'),
  4: mapOf('volumeAttributes', 'string', 'Driver-specific properties.'),
  5: msg('nodePublishSecretRef', () => LocalObjectReference, 'Secret with sensitive data passed to the driver when mounting.'),
});
export const ImageVolumeSource = struct(`${V1}ImageVolumeSource`, 'The contents of an OCI image or artifact, mounted read-only.', {
  1: str('reference', 'Image or artifact reference to mount, as for a container image.'),
  2: str('pullPolicy', 'Always, Never or IfNotPresent; defaults to Always for :latest, else IfNotPresent.'),
});
export const VolumeSource = struct(
  `${V1}VolumeSource`,
  'Where a volume comes from; set exactly one field.',
  {
    1: msg('hostPath', () => HostPathVolumeSource, 'A file or directory on the node.'),
    2: msg('emptyDir', () => EmptyDirVolumeSource, 'An empty directory that lives as long as the pod.'),
    6: msg('secret', () => SecretVolumeSource, 'The keys of a Secret.'),
    7: msg('nfs', () => NFSVolumeSource, 'An NFS export.'),
    10: msg('persistentVolumeClaim', () => PersistentVolumeClaimVolumeSource, 'A PersistentVolumeClaim in the pod namespace.'),
    16: msg('downwardAPI', () => DownwardAPIVolumeSource, 'Information about the pod.'),
    19: msg('configMap', () => ConfigMapVolumeSource, 'The keys of a ConfigMap.'),
    26: msg('projected', () => ProjectedVolumeSource, 'Secrets, ConfigMaps, pod information and tokens in one directory.'),
    28: msg('csi', () => CSIVolumeSource, 'An ephemeral volume from a CSI driver.'),
    30: msg('image', () => ImageVolumeSource, 'An OCI image or artifact.'),
  },
  { unlisted: 'any' },
);
export const Volume = struct(`${V1}Volume`, "A named volume the pod's containers can mount.", {
  1: str('name', 'Name of the volume, a DNS label unique in the pod; volumeMounts refer to it.'),
  2: inline('volumeSource', () => VolumeSource),
});

// Scheduling: tolerations, affinity, topology spread.
export const Toleration = struct(`${V1}Toleration`, 'Lets the pod be scheduled on, or stay on, nodes with a matching taint.', {
  1: str('key', 'Taint key to match; empty with operator Exists matches every taint.'),
  2: str('operator', 'Equal (default) or Exists (matches any value).'),
  3: str('value', 'Taint value to match; empty with operator Exists.'),
  4: str('effect', 'NoSchedule, PreferNoSchedule or NoExecute; empty matches every effect.'),
  5: i64Ptr('tolerationSeconds', 'For NoExecute: seconds the pod stays bound after the taint appears; unset means forever.'),
});
export const NodeSelectorRequirement = struct(`${V1}NodeSelectorRequirement`, "One condition on a node's labels or fields.", {
  1: str('key', 'The label key or field name the condition applies to.'),
  2: str('operator', 'In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
  3: strs('values', 'Values for In and NotIn; one integer for Gt and Lt; empty for Exists and DoesNotExist.'),
});
export const NodeSelectorTerm = struct(
  `${V1}NodeSelectorTerm`,
  'Conditions on a node, all of which must hold; an empty term matches no node.',
  {
    1: list('matchExpressions', () => NodeSelectorRequirement, "Conditions on the node's labels."),
    2: list('matchFields', () => NodeSelectorRequirement, "Conditions on the node's fields (metadata.name)."),
  },
  { atomic: true },
);
export const NodeSelector = struct(
  `${V1}NodeSelector`,
  'Selects nodes: a node matches when any of the terms matches it.',
  { 1: list('nodeSelectorTerms', () => NodeSelectorTerm, 'The terms, ORed together.') },
  { atomic: true },
);
export const PreferredSchedulingTerm = struct(`${V1}PreferredSchedulingTerm`, 'A weighted node preference.', {
  1: i32('weight', "Weight added to a node's score when it matches, 1-100."),
  2: msg('preference', () => NodeSelectorTerm, 'The conditions a preferred node meets.'),
});
export const NodeAffinity = struct(`${V1}NodeAffinity`, 'Rules on which nodes the pod may or should be scheduled to.', {
  1: msg('requiredDuringSchedulingIgnoredDuringExecution', () => NodeSelector, 'Nodes the pod must be scheduled to; not enforced once it runs.'),
  2: list('preferredDuringSchedulingIgnoredDuringExecution', () => PreferredSchedulingTerm, 'Nodes the scheduler favors, by the sum of matching weights.'),
});
export const PodAffinityTerm = struct(`${V1}PodAffinityTerm`, 'Pods, by label and namespace, and the topology domain to compare with them.', {
  1: msg('labelSelector', () => LabelSelector, 'Which pods to consider; none when unset.'),
  2: strs('namespaces', "Namespaces the pods are in; with namespaceSelector unset, empty means the pod's own."),
  3: str('topologyKey', 'Node label whose value defines a domain, such as kubernetes.io/hostname; must not be empty.'),
  4: msg('namespaceSelector', () => LabelSelector, 'Namespaces, by label, added to namespaces; an empty selector means all namespaces.'),
  5: strs('matchLabelKeys', "Label keys whose values from the incoming pod are added to labelSelector as In conditions."),
  6: strs('mismatchLabelKeys', "Label keys whose values from the incoming pod are added to labelSelector as NotIn conditions."),
});
export const WeightedPodAffinityTerm = struct(`${V1}WeightedPodAffinityTerm`, 'A weighted pod affinity or anti-affinity preference.', {
  1: i32('weight', "Weight added to (or, for anti-affinity, taken from) a node's score when the term matches, 1-100."),
  2: msg('podAffinityTerm', () => PodAffinityTerm, 'The term.'),
});
export const PodAffinity = struct(`${V1}PodAffinity`, 'Rules to schedule the pod in the same domain as certain other pods.', {
  1: list('requiredDuringSchedulingIgnoredDuringExecution', () => PodAffinityTerm, 'Terms that must all hold at scheduling time; not enforced once the pod runs.'),
  2: list('preferredDuringSchedulingIgnoredDuringExecution', () => WeightedPodAffinityTerm, 'Terms the scheduler favors, by the sum of matching weights.'),
});
export const PodAntiAffinity = struct(`${V1}PodAntiAffinity`, 'Rules to keep the pod out of domains where certain other pods run.', {
  1: list('requiredDuringSchedulingIgnoredDuringExecution', () => PodAffinityTerm, 'Terms that must all hold at scheduling time; not enforced once the pod runs.'),
  2: list('preferredDuringSchedulingIgnoredDuringExecution', () => WeightedPodAffinityTerm, 'Terms the scheduler favors avoiding, by the sum of matching weights.'),
});
export const Affinity = struct(`${V1}Affinity`, 'Scheduling constraints relative to nodes and to other pods.', {
  1: msg('nodeAffinity', () => NodeAffinity, 'Rules on node labels and fields.'),
  2: msg('podAffinity', () => PodAffinity, 'Rules to run near certain pods.'),
  3: msg('podAntiAffinity', () => PodAntiAffinity, 'Rules to run away from certain pods.'),
});
export const TopologySpreadConstraint = struct(`${V1}TopologySpreadConstraint`, 'How evenly matching pods must spread across topology domains.', {
  1: i32('maxSkew', 'Largest allowed difference in matching pods between two domains; at least 1.'),
  2: str('topologyKey', 'Node label whose value defines a domain, such as topology.kubernetes.io/zone.'),
  3: str('whenUnsatisfiable', 'DoNotSchedule (a hard rule) or ScheduleAnyway (a preference).'),
  4: msg('labelSelector', () => LabelSelector, 'Which pods are counted in each domain.'),
  5: i32Ptr('minDomains', 'Fewest domains to count with; below it, missing domains count as empty. Only with DoNotSchedule.'),
  6: strPtr('nodeAffinityPolicy', "Honor (default) or Ignore: whether the pod's nodeAffinity and nodeSelector limit the domains."),
  7: strPtr('nodeTaintsPolicy', 'Ignore (default) or Honor: whether node taints the pod does not tolerate limit the domains.'),
  8: strs('matchLabelKeys', "Label keys whose values from the incoming pod narrow labelSelector."),
});

// DNS, hosts and the rest of the pod spec.
export const PodDNSConfigOption = struct(`${V1}PodDNSConfigOption`, 'A resolver option, as in resolv.conf.', {
  1: str('name', 'Name of the option, such as ndots.'),
  2: strPtr('value', 'Value of the option, if it takes one.'),
});
export const PodDNSConfig = struct(`${V1}PodDNSConfig`, "DNS settings merged into those the dnsPolicy gives the pod's resolv.conf.", {
  1: strs('nameservers', 'Extra DNS server IP addresses; duplicates are removed.'),
  2: strs('searches', 'Extra search domains; duplicates are removed.'),
  3: list('options', () => PodDNSConfigOption, 'Resolver options; they override options of the same name from the policy.'),
});
export const HostAlias = struct(`${V1}HostAlias`, "An entry added to the pod's /etc/hosts.", {
  1: str('ip', 'IP address of the entry.'),
  2: strs('hostnames', 'Host names for the IP address.'),
});
export const PodReadinessGate = struct(`${V1}PodReadinessGate`, 'An extra pod condition that must be True for the pod to be ready.', {
  1: str('conditionType', "Type of a condition in the pod's status.conditions."),
});
export const PodOS = struct(`${V1}PodOS`, 'The operating system the pod is meant to run on.', {
  1: str('name', 'linux or windows.'),
});
export const PodSchedulingGate = struct(`${V1}PodSchedulingGate`, 'A gate that keeps the pod from being scheduled until it is removed.', {
  1: str('name', 'Name of the gate, unique in the pod.'),
});

export const PodResourceClaim = struct(`${V1}PodResourceClaim`, 'A resource claim of the pod: a name and the ResourceClaim or template it stands for.', {
  1: str('name', 'Name of the claim within the pod, which containers list in resources.claims.'),
  3: strPtr('resourceClaimName', 'An existing ResourceClaim in the pod namespace; exclusive with resourceClaimTemplateName.'),
  4: strPtr('resourceClaimTemplateName', 'A ResourceClaimTemplate from which a claim is made for this pod; exclusive with resourceClaimName.'),
});

export const PodSpec = struct(
  `${V1}PodSpec`,
  "The desired state of a pod: its containers, volumes, and how and where it runs.",
  {
    1: list('volumes', () => Volume, "Volumes the pod's containers can mount.", retainKeys(byKey('name'))),
    20: list('initContainers', () => Container, 'Containers run one by one, each to success, before the app containers start.', byKey('name')),
    2: list('containers', () => Container, 'The containers of the pod; at least one; cannot be added or removed later.', byKey('name')),
    34: list('ephemeralContainers', () => EphemeralContainer, 'Debugging containers added to the running pod; set through the ephemeralcontainers subresource.', byKey('name')),
    3: str('restartPolicy', 'Always (default), OnFailure or Never: when containers that exit are restarted.'),
    4: i64Ptr('terminationGracePeriodSeconds', 'Seconds between the stop signal and the kill on deletion; defaults to 30, 0 kills at once.'),
    5: i64Ptr('activeDeadlineSeconds', 'Seconds the pod may run, counted from its start, before it is failed.'),
    6: str('dnsPolicy', 'ClusterFirst (default), ClusterFirstWithHostNet, Default or None: where the pod gets its DNS settings.'),
    7: mapOf('nodeSelector', 'string', 'Labels a node must have for the pod to be scheduled there.', { atomicMap: true }),
    8: str('serviceAccountName', 'Service account the pod runs as; defaults to default.'),
    9: str('serviceAccount', 'Deprecated: use serviceAccountName.'),
    21: boolPtr('automountServiceAccountToken', "Whether a service account token is mounted; overrides the service account's setting."),
    10: str('nodeName', 'Node the pod is bound to; set by the scheduler, or by hand to bypass it.'),
    11: bool('hostNetwork', "Uses the node's network namespace; the pod then has the node's IP and ports. Defaults to false."),
    12: bool('hostPID', "Uses the node's process ID namespace; defaults to false."),
    13: bool('hostIPC', "Uses the node's IPC namespace; defaults to false."),
    27: boolPtr('shareProcessNamespace', "Puts all containers in one process namespace, so they see each other's processes; defaults to false."),
    14: msg('securityContext', () => PodSecurityContext, 'Security settings for all containers and volumes.'),
    15: list('imagePullSecrets', () => LocalObjectReference, 'Secrets in the pod namespace with registry credentials to pull the images.', byKey('name')),
    16: str('hostname', "Host name of the pod; defaults to the pod's name."),
    17: str('subdomain', 'Subdomain, so the pod is <hostname>.<subdomain>.<namespace>.svc.<cluster domain> in DNS.'),
    18: msg('affinity', () => Affinity, 'Node affinity and pod (anti-)affinity rules for scheduling.'),
    19: str('schedulerName', 'Scheduler that places the pod; defaults to default-scheduler.'),
    22: list('tolerations', () => Toleration, 'Taints the pod tolerates.'),
    23: list('hostAliases', () => HostAlias, "Entries added to the pod's /etc/hosts.", byKey('ip')),
    24: str('priorityClassName', 'PriorityClass giving the pod its priority; empty uses the global default or 0.'),
    25: i32Ptr('priority', 'Priority of the pod, filled in from priorityClassName by admission; higher goes first.'),
    26: msg('dnsConfig', () => PodDNSConfig, 'DNS settings added to those from dnsPolicy.'),
    28: list('readinessGates', () => PodReadinessGate, 'Extra conditions that must be True for the pod to be ready.'),
    29: strPtr('runtimeClassName', 'RuntimeClass to run the pod with; the default runtime handler when unset.'),
    30: boolPtr('enableServiceLinks', 'Whether Docker-link style environment variables for Services are injected; defaults to true.'),
    31: strPtr('preemptionPolicy', 'PreemptLowerPriority (default) or Never: whether the pod may evict lower-priority pods.'),
    32: mapOf('overhead', () => Quantity, "Resources the pod's runtime uses beyond its containers; set from the RuntimeClass."),
    33: list('topologySpreadConstraints', () => TopologySpreadConstraint, 'How the pod spreads among matching pods across domains.', byKey('topologyKey', 'whenUnsatisfiable')),
    35: boolPtr('setHostnameAsFQDN', "Makes the pod's hostname its fully qualified domain name; defaults to false."),
    36: msg('os', () => PodOS, 'Operating system the pod needs; validation then checks OS-specific fields.'),
    37: boolPtr('hostUsers', "Uses the node's user namespace; false gives the pod a user namespace of its own. Defaults to true."),
    38: list('schedulingGates', () => PodSchedulingGate, 'Gates that all must be removed before the pod is scheduled; only removable after creation.', byKey('name')),
    39: list('resourceClaims', () => PodResourceClaim, 'Dynamic resource claims the pod uses, each named for its containers to refer to.', retainKeys(byKey('name'))),
    40: msg('resources', () => ResourceRequirements, "Resources for the whole pod, shared by its containers (cpu, memory)."),
  },
);

export const PodTemplateSpec = struct(`${V1}PodTemplateSpec`, 'A template for the pods a controller creates: their metadata and spec.', {
  1: msg('metadata', () => ObjectMeta, "Metadata of the pods made from the template; labels must match the controller's selector."),
  2: msg('spec', () => PodSpec, 'Spec of the pods made from the template.'),
});

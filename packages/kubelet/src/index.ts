// @kemu/kubelet: an emulated kubelet (like KWOK, but a real process per node or per N nodes) that registers
// Nodes, renews their Leases, admits the pods bound to them and plays each pod's lifecycle on a clock,
// reporting it through the API exactly as a kubelet does. Containers never run: docs/kubelet.md says how
// their behaviour is read from the pod spec.
export { Kubelet } from './kubelet.ts';
export { FLAGS, parseOptions, resolveOptions, type KubeletOptions } from './options.ts';
export { PodLifecycle } from './pods/lifecycle.ts';
export { containerBehaviour, type Behaviour } from './pods/command.ts';
export { kubeletRoutes, podNodeOf, type LoggedPod } from './server/container-logs.ts';
export { HEALTHZ_FLAGS, startKubeletHealthz, type KubeletHealthz } from './server/healthz.ts';

// v1 defaults (pkg/scheduler/apis/config/v1/defaults.go + default_plugins.go): the default multiPoint plugin
// list with weights, merged with a profile's own enabled/disabled sets, and per-plugin default args.
import type { TopologySpreadConstraint } from '@kemu/api';
import { Names } from '../plugins/names.ts';
import type { KubeSchedulerConfiguration, PluginRef, PluginSet, Profile } from './types.ts';
import { EXTENSION_POINTS, emptyPlugins } from './types.ts';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** default_plugins.go getDefaultPlugins() (the volume plugins: VolumeRestrictions, NodeVolumeLimits (CSI), VolumeBinding, VolumeZone). */
export function defaultMultiPoint(): PluginRef[] {
  return [
    { name: Names.SchedulingGates },
    { name: Names.PrioritySort },
    { name: Names.NodeUnschedulable },
    { name: Names.NodeName },
    { name: Names.TaintToleration, weight: 3 },
    { name: Names.NodeAffinity, weight: 2 },
    { name: Names.NodePorts },
    { name: Names.NodeResourcesFit, weight: 1 },
    { name: Names.VolumeRestrictions },
    { name: Names.NodeVolumeLimits },
    { name: Names.VolumeBinding },
    { name: Names.VolumeZone },
    { name: Names.PodTopologySpread, weight: 2 },
    { name: Names.InterPodAffinity, weight: 2 },
    { name: Names.DefaultPreemption },
    { name: Names.NodeResourcesBalancedAllocation, weight: 1 },
    { name: Names.ImageLocality, weight: 1 },
    { name: Names.DefaultBinder },
  ];
}

/** mergePluginSet: defaults minus disabled ("*" = all), re-configured defaults replaced in place, customs appended. */
export function mergePluginSet(defaults: PluginRef[], custom: PluginSet): PluginSet {
  const disabled = new Set(custom.disabled.map((d) => d.name));
  const customByName = new Map<string, { index: number; ref: PluginRef }>();
  custom.enabled.forEach((ref, index) => customByName.set(ref.name, { index, ref }));
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabled.has('*'))
    for (const d of defaults) {
      if (disabled.has(d.name)) continue;
      const c = customByName.get(d.name);
      if (c) {
        replaced.add(c.index);
        enabled.push(c.ref);
      } else enabled.push(d);
    }
  custom.enabled.forEach((ref, i) => {
    if (!replaced.has(i)) enabled.push(ref);
  });
  return { enabled, disabled: custom.disabled };
}

export const defaultArgs: Record<string, () => Record<string, unknown>> = {
  [Names.DefaultPreemption]: () => ({ minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }),
  [Names.InterPodAffinity]: () => ({ hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false }),
  [Names.NodeAffinity]: () => ({}),
  [Names.NodeResourcesBalancedAllocation]: () => ({ resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] }),
  [Names.NodeResourcesFit]: () => ({
    ignoredResources: [],
    ignoredResourceGroups: [],
    scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] },
  }),
  [Names.PodTopologySpread]: () => ({ defaultConstraints: [] as TopologySpreadConstraint[], defaultingType: 'System' }),
};

/** Fills missing args fields from the plugin's defaults (one level deep, plus scoringStrategy). */
function defaultPluginArgs(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const d = defaultArgs[name]?.();
  if (!d) return args;
  const out: Record<string, unknown> = { ...d, ...args };
  if (name === Names.NodeResourcesFit && args.scoringStrategy && typeof args.scoringStrategy === 'object') {
    const s = { ...(d.scoringStrategy as Record<string, unknown>), ...(args.scoringStrategy as Record<string, unknown>) };
    if (s.type === 'RequestedToCapacityRatio' && s.requestedToCapacityRatio === undefined)
      s.requestedToCapacityRatio = { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }] };
    out.scoringStrategy = s;
  }
  if (name === Names.PodTopologySpread && args.defaultingType === undefined && Array.isArray(args.defaultConstraints) && args.defaultConstraints.length > 0)
    out.defaultingType = 'List';
  return out;
}

export function defaultProfile(p: Partial<Profile>): Profile {
  const plugins = emptyPlugins();
  for (const ep of EXTENSION_POINTS) {
    const custom = p.plugins?.[ep] ?? { enabled: [], disabled: [] };
    plugins[ep] = ep === 'multiPoint' ? mergePluginSet(defaultMultiPoint(), custom) : custom;
  }
  const enabledNames = new Set<string>();
  for (const ep of EXTENSION_POINTS) for (const r of plugins[ep].enabled) enabledNames.add(r.name);
  const given = new Map((p.pluginConfig ?? []).map((c) => [c.name, c.args]));
  const pluginConfig = (p.pluginConfig ?? []).map((c) => ({ name: c.name, args: defaultPluginArgs(c.name, c.args) }));
  for (const name of enabledNames) {
    if (given.has(name)) continue;
    const d = defaultArgs[name];
    if (d) pluginConfig.push({ name, args: d() });
  }
  const out: Profile = { schedulerName: p.schedulerName || DEFAULT_SCHEDULER_NAME, plugins, pluginConfig };
  if (p.percentageOfNodesToScore !== undefined) out.percentageOfNodesToScore = p.percentageOfNodesToScore;
  return out;
}

export function defaultConfiguration(): KubeSchedulerConfiguration {
  return {
    parallelism: 16,
    clientConnection: { kubeconfig: '', qps: 50, burst: 100, acceptContentTypes: '', contentType: 'application/vnd.kubernetes.protobuf' },
    leaderElection: {
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceLock: 'leases',
      resourceName: 'kube-scheduler',
      resourceNamespace: 'kube-system',
    },
    percentageOfNodesToScore: 0,
    podInitialBackoffSeconds: 1,
    podMaxBackoffSeconds: 10,
    profiles: [defaultProfile({})],
  };
}

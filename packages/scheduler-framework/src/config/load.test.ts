import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigurationText } from './load.ts';

const head = 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n';

function errorsOf(yaml: string): string[] {
  try {
    parseConfigurationText(yaml);
  } catch (e) {
    if (e instanceof ConfigError) return e.errors;
    throw e;
  }
  return [];
}

describe('KubeSchedulerConfiguration', () => {
  it('defaults as v1', () => {
    const c = parseConfigurationText(head);
    expect(c.podInitialBackoffSeconds).toBe(1);
    expect(c.podMaxBackoffSeconds).toBe(10);
    expect(c.percentageOfNodesToScore).toBe(0);
    expect(c.clientConnection).toMatchObject({ qps: 50, burst: 100 });
    expect(c.leaderElection).toMatchObject({
      leaderElect: true,
      leaseDurationMs: 15000,
      renewDeadlineMs: 10000,
      retryPeriodMs: 2000,
      resourceName: 'kube-scheduler',
      resourceNamespace: 'kube-system',
    });
    expect(c.profiles).toHaveLength(1);
    const p = c.profiles[0];
    expect(p?.schedulerName).toBe('default-scheduler');
    const weights = Object.fromEntries((p?.plugins.multiPoint.enabled ?? []).filter((r) => r.weight).map((r) => [r.name, r.weight]));
    expect(weights).toEqual({
      TaintToleration: 3,
      NodeAffinity: 2,
      NodeResourcesFit: 1,
      PodTopologySpread: 2,
      InterPodAffinity: 2,
      NodeResourcesBalancedAllocation: 1,
      ImageLocality: 1,
    });
    expect(p?.pluginConfig.find((x) => x.name === 'NodeResourcesFit')?.args).toMatchObject({ scoringStrategy: { type: 'LeastAllocated' } });
    expect(p?.pluginConfig.find((x) => x.name === 'PodTopologySpread')?.args).toMatchObject({ defaultingType: 'System' });
  });

  it('reads durations, profiles, disabled plugins and args', () => {
    const c = parseConfigurationText(`${head}
clientConnection: { kubeconfig: /tmp/k, qps: 200, burst: 400 }
leaderElection: { leaseDuration: 4s, renewDeadline: 3s, retryPeriod: 500ms }
percentageOfNodesToScore: 30
profiles:
- schedulerName: a
  plugins:
    multiPoint:
      disabled: [{ name: ImageLocality }]
      enabled: [{ name: NodeAffinity, weight: 7 }]
- schedulerName: b
  plugins:
    score:
      disabled: [{ name: '*' }]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{ name: cpu, weight: 3 }]
        requestedToCapacityRatio: { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] }
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway }]
`);
    expect(c.clientConnection).toMatchObject({ kubeconfig: '/tmp/k', qps: 200, burst: 400 });
    expect(c.leaderElection).toMatchObject({ leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 });
    const [a, b] = c.profiles;
    expect(a?.plugins.multiPoint.enabled.map((r) => r.name)).not.toContain('ImageLocality');
    expect(a?.plugins.multiPoint.enabled.find((r) => r.name === 'NodeAffinity')?.weight).toBe(7);
    expect(b?.plugins.score.disabled).toEqual([{ name: '*' }]);
    expect(b?.pluginConfig.find((x) => x.name === 'NodeResourcesFit')?.args).toMatchObject({
      scoringStrategy: { type: 'RequestedToCapacityRatio', resources: [{ name: 'cpu', weight: 3 }] },
    });
    expect(b?.pluginConfig.find((x) => x.name === 'PodTopologySpread')?.args).toMatchObject({ defaultingType: 'List' });
  });

  const bad: [string, string, string][] = [
    ['wrong apiVersion', 'apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n', 'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta2"'],
    ['unknown field', `${head}foo: 1\n`, 'strict decoding error: unknown field "foo"'],
    ['unknown nested field', `${head}leaderElection: { leaderElectt: true }\n`, 'strict decoding error: unknown field "leaderElection.leaderElectt"'],
    ['percentage', `${head}percentageOfNodesToScore: 101\n`, 'percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]'],
    ['backoff', `${head}podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n`, 'podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds'],
    ['lease', `${head}leaderElection: { leaseDuration: 5s, renewDeadline: 10s }\n`, 'leaderElection.leaseDuration: Invalid value: "10s": LeaseDuration must be greater than RenewDeadline'],
    ['bad duration', `${head}leaderElection: { leaseDuration: soon }\n`, 'leaderElection.leaseDuration: Invalid value: "soon": time: invalid duration "soon"'],
    ['duplicate profile', `${head}profiles: [{ schedulerName: a }, { schedulerName: a }]\n`, 'profiles[1].schedulerName: Duplicate value: "a"'],
    ['missing schedulerName', `${head}profiles: [{ plugins: {} }]\n`, 'profiles[0].schedulerName: Required value'],
    [
      'scoring strategy',
      `${head}profiles: [{ schedulerName: a, pluginConfig: [{ name: NodeResourcesFit, args: { scoringStrategy: { type: Best } } }] }]\n`,
      'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Best": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    ],
    [
      'resource weight',
      `${head}profiles: [{ schedulerName: a, pluginConfig: [{ name: NodeResourcesFit, args: { scoringStrategy: { resources: [{ name: cpu, weight: 0 }] } } }] }]\n`,
      'profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range [1, 100]',
    ],
    [
      'hard pod affinity weight',
      `${head}profiles: [{ schedulerName: a, pluginConfig: [{ name: InterPodAffinity, args: { hardPodAffinityWeight: 101 } }] }]\n`,
      'profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]',
    ],
    [
      'selector in default constraint',
      `${head}profiles: [{ schedulerName: a, pluginConfig: [{ name: PodTopologySpread, args: { defaultingType: List, defaultConstraints: [{ maxSkew: 1, topologyKey: z, whenUnsatisfiable: DoNotSchedule, labelSelector: {} }] } }] }]\n`,
      'profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod',
    ],
    [
      'different queue sort',
      `${head}profiles: [{ schedulerName: a }, { schedulerName: b, plugins: { queueSort: { disabled: [{ name: '*' }] } } }]\n`,
      'profiles[1].plugins.queueSort: Invalid value: []: must be the same for all profiles',
    ],
  ];
  for (const [name, yaml, want] of bad) it(`rejects: ${name}`, () => expect(errorsOf(yaml).join("\n")).toContain(want));
});

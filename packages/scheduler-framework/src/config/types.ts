// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), the fields kemu reads, after defaulting.

export const CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1';
export const CONFIG_KIND = 'KubeSchedulerConfiguration';

export interface PluginRef {
  name: string;
  weight?: number;
}

export interface PluginSet {
  enabled: PluginRef[];
  disabled: PluginRef[];
}

export const EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
  'multiPoint',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export type Plugins = Record<ExtensionPoint, PluginSet>;

export interface PluginConfig {
  name: string;
  args: Record<string, unknown>;
}

export interface Profile {
  schedulerName: string;
  percentageOfNodesToScore?: number;
  plugins: Plugins;
  pluginConfig: PluginConfig[];
}

export interface ClientConnection {
  kubeconfig: string;
  qps: number;
  burst: number;
  acceptContentTypes: string;
  contentType: string;
}

export interface LeaderElection {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface KubeSchedulerConfiguration {
  parallelism: number;
  clientConnection: ClientConnection;
  leaderElection: LeaderElection;
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: Profile[];
}

export function emptyPlugins(): Plugins {
  const p = {} as Plugins;
  for (const ep of EXTENSION_POINTS) p[ep] = { enabled: [], disabled: [] };
  return p;
}

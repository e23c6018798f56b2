// Reads a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) from YAML: strict decoding, v1
// defaults, then Kubernetes' validation. Any problem is a ConfigError listing every bad field.
import { parse as parseYaml } from 'yaml';
import { defaultConfiguration, defaultProfile } from './defaults.ts';
import { decodePluginArgs } from './args.ts';
import { Reader, type Obj } from './reader.ts';
import {
  CONFIG_API_VERSION,
  CONFIG_KIND,
  EXTENSION_POINTS,
  emptyPlugins,
  type KubeSchedulerConfiguration,
  type PluginRef,
  type Plugins,
  type Profile,
} from './types.ts';

export class ConfigError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`);
    this.name = 'ConfigError';
  }
}

const TOP = [
  'apiVersion',
  'kind',
  'parallelism',
  'clientConnection',
  'leaderElection',
  'percentageOfNodesToScore',
  'podInitialBackoffSeconds',
  'podMaxBackoffSeconds',
  'profiles',
  'extenders',
  'delayCacheUntilActive',
  'enableProfiling',
  'enableContentionProfiling',
  'healthzBindAddress',
  'metricsBindAddress',
];

function decodePluginSet(r: Reader, v: unknown, path: string): { enabled: PluginRef[]; disabled: PluginRef[] } {
  const o = r.obj(v, path, ['enabled', 'disabled']) ?? {};
  const list = (x: unknown, p: string) =>
    (r.arr(x, p) ?? []).map((e, i) => {
      const eo = r.obj(e, `${p}[${i}]`, ['name', 'weight']) ?? {};
      const name = r.str(eo.name, `${p}[${i}].name`) ?? '';
      if (name === '') r.fail(`${p}[${i}].name`, 'Required value');
      const weight = r.num(eo.weight, `${p}[${i}].weight`);
      if (weight !== undefined && weight < 0) r.fail(`${p}[${i}].weight`, `Invalid value: ${weight}: must be non-negative`);
      return weight === undefined ? { name } : { name, weight };
    });
  return { enabled: list(o.enabled, `${path}.enabled`), disabled: list(o.disabled, `${path}.disabled`) };
}

function decodeProfile(r: Reader, v: unknown, path: string): Partial<Profile> {
  const o = r.obj(v, path, ['schedulerName', 'percentageOfNodesToScore', 'plugins', 'pluginConfig']) ?? {};
  const out: Partial<Profile> = {};
  const name = r.str(o.schedulerName, `${path}.schedulerName`);
  if (name !== undefined) out.schedulerName = name;
  const pct = r.num(o.percentageOfNodesToScore, `${path}.percentageOfNodesToScore`);
  if (pct !== undefined) {
    if (pct < 0 || pct > 100) r.fail(`${path}.percentageOfNodesToScore`, `Invalid value: ${pct}: not in valid range [0-100]`);
    out.percentageOfNodesToScore = pct;
  }
  const po = r.obj(o.plugins, `${path}.plugins`, EXTENSION_POINTS);
  if (po) {
    const plugins: Plugins = emptyPlugins();
    for (const ep of EXTENSION_POINTS) if (po[ep] !== undefined) plugins[ep] = decodePluginSet(r, po[ep], `${path}.plugins.${ep}`);
    out.plugins = plugins;
  }
  const pcs = r.arr(o.pluginConfig, `${path}.pluginConfig`);
  if (pcs) {
    const seen = new Set<string>();
    out.pluginConfig = pcs.map((x, i) => {
      const p = `${path}.pluginConfig[${i}]`;
      const pc = r.obj(x, p, ['name', 'args']) ?? {};
      const pname = r.str(pc.name, `${p}.name`) ?? '';
      if (pname === '') r.fail(`${p}.name`, 'Required value');
      if (seen.has(pname)) r.fail(`${p}.name`, `Duplicate value: "${pname}"`);
      seen.add(pname);
      return { name: pname, args: decodePluginArgs(r, pname, pc.args ?? {}, `${p}.args`) };
    });
  }
  return out;
}

export function decodeConfiguration(doc: unknown): KubeSchedulerConfiguration {
  const r = new Reader();
  const cfg = defaultConfiguration();
  const o = r.obj(doc, '', TOP);
  if (!o) throw new ConfigError(r.errors.length ? r.errors : ['configuration is empty']);
  if (o.apiVersion !== CONFIG_API_VERSION || o.kind !== CONFIG_KIND)
    throw new ConfigError([
      `no kind "${String(o.kind ?? '')}" is registered for version "${String(o.apiVersion ?? '')}" (kemu reads ${CONFIG_KIND} of ${CONFIG_API_VERSION})`,
    ]);
  for (const k of ['extenders']) if (o[k] !== undefined && !(Array.isArray(o[k]) && (o[k] as unknown[]).length === 0)) r.fail(k, 'Forbidden: scheduler extenders are not supported by kemu');

  cfg.parallelism = r.num(o.parallelism, 'parallelism') ?? cfg.parallelism;
  cfg.percentageOfNodesToScore = r.num(o.percentageOfNodesToScore, 'percentageOfNodesToScore') ?? cfg.percentageOfNodesToScore;
  cfg.podInitialBackoffSeconds = r.num(o.podInitialBackoffSeconds, 'podInitialBackoffSeconds') ?? cfg.podInitialBackoffSeconds;
  cfg.podMaxBackoffSeconds = r.num(o.podMaxBackoffSeconds, 'podMaxBackoffSeconds') ?? cfg.podMaxBackoffSeconds;

  const cc = r.obj(o.clientConnection, 'clientConnection', ['kubeconfig', 'qps', 'burst', 'acceptContentTypes', 'contentType']);
  if (cc) {
    cfg.clientConnection.kubeconfig = r.str(cc.kubeconfig, 'clientConnection.kubeconfig') ?? '';
    cfg.clientConnection.qps = r.num(cc.qps, 'clientConnection.qps', false) ?? cfg.clientConnection.qps;
    cfg.clientConnection.burst = r.num(cc.burst, 'clientConnection.burst') ?? cfg.clientConnection.burst;
    cfg.clientConnection.acceptContentTypes = r.str(cc.acceptContentTypes, 'clientConnection.acceptContentTypes') ?? '';
    cfg.clientConnection.contentType = r.str(cc.contentType, 'clientConnection.contentType') ?? cfg.clientConnection.contentType;
  }
  const le = r.obj(o.leaderElection, 'leaderElection', [
    'leaderElect',
    'leaseDuration',
    'renewDeadline',
    'retryPeriod',
    'resourceLock',
    'resourceName',
    'resourceNamespace',
  ]);
  if (le) {
    const l = cfg.leaderElection;
    l.leaderElect = r.bool(le.leaderElect, 'leaderElection.leaderElect') ?? l.leaderElect;
    l.leaseDurationMs = r.duration(le.leaseDuration, 'leaderElection.leaseDuration') ?? l.leaseDurationMs;
    l.renewDeadlineMs = r.duration(le.renewDeadline, 'leaderElection.renewDeadline') ?? l.renewDeadlineMs;
    l.retryPeriodMs = r.duration(le.retryPeriod, 'leaderElection.retryPeriod') ?? l.retryPeriodMs;
    l.resourceLock = r.str(le.resourceLock, 'leaderElection.resourceLock') ?? l.resourceLock;
    l.resourceName = r.str(le.resourceName, 'leaderElection.resourceName') ?? l.resourceName;
    l.resourceNamespace = r.str(le.resourceNamespace, 'leaderElection.resourceNamespace') ?? l.resourceNamespace;
  }
  const profiles = r.arr(o.profiles, 'profiles');
  if (profiles && profiles.length > 0) cfg.profiles = profiles.map((p, i) => defaultProfile(decodeProfile(r, p, `profiles[${i}]`)));
  if (r.errors.length) throw new ConfigError(r.errors);
  const errs = validateConfiguration(cfg, (profiles ?? []) as Obj[]);
  if (errs.length) throw new ConfigError(errs);
  return cfg;
}

/** ValidateKubeSchedulerConfiguration (the parts that apply to kemu). */
export function validateConfiguration(cfg: KubeSchedulerConfiguration, rawProfiles: Obj[] = []): string[] {
  const e: string[] = [];
  if (cfg.parallelism <= 0) e.push(`parallelism: Invalid value: ${cfg.parallelism}: should be an integer value greater than zero`);
  if (cfg.percentageOfNodesToScore < 0 || cfg.percentageOfNodesToScore > 100)
    e.push(`percentageOfNodesToScore: Invalid value: ${cfg.percentageOfNodesToScore}: not in valid range [0-100]`);
  if (cfg.podInitialBackoffSeconds <= 0) e.push(`podInitialBackoffSeconds: Invalid value: ${cfg.podInitialBackoffSeconds}: must be greater than 0`);
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds)
    e.push(`podMaxBackoffSeconds: Invalid value: ${cfg.podMaxBackoffSeconds}: must be greater than or equal to PodInitialBackoffSeconds`);
  const l = cfg.leaderElection;
  if (l.leaderElect) {
    const fmt = (ms: number) => `"${ms / 1000}s"`;
    if (l.leaseDurationMs <= 0) e.push(`leaderElection.leaseDuration: Invalid value: ${fmt(l.leaseDurationMs)}: must be greater than zero`);
    if (l.renewDeadlineMs <= 0) e.push(`leaderElection.renewDeadline: Invalid value: ${fmt(l.renewDeadlineMs)}: must be greater than zero`);
    if (l.retryPeriodMs <= 0) e.push(`leaderElection.retryPeriod: Invalid value: ${fmt(l.retryPeriodMs)}: must be greater than zero`);
    if (l.leaseDurationMs <= l.renewDeadlineMs)
      e.push(`leaderElection.leaseDuration: Invalid value: ${fmt(l.renewDeadlineMs)}: LeaseDuration must be greater than RenewDeadline`);
    if (l.resourceLock === '') e.push('leaderElection.resourceLock: Invalid value: "": resourceLock is required');
    else if (l.resourceLock !== 'leases')
      e.push(`leaderElection.resourceLock: Unsupported value: "${l.resourceLock}": supported values: "leases"`);
    if (l.resourceName === '') e.push('leaderElection.resourceName: Invalid value: "": resourceName is required');
    if (l.resourceNamespace === '') e.push('leaderElection.resourceNamespace: Invalid value: "": resourceNamespace is required');
  }
  const names = new Set<string>();
  cfg.profiles.forEach((p, i) => {
    const raw = rawProfiles[i];
    if (raw && (raw.schedulerName === undefined || raw.schedulerName === '')) e.push(`profiles[${i}].schedulerName: Required value`);
    if (names.has(p.schedulerName)) e.push(`profiles[${i}].schedulerName: Duplicate value: "${p.schedulerName}"`);
    names.add(p.schedulerName);
  });
  // All profiles must share one queue sort (there is a single queue).
  const qs = (p: Profile) => JSON.stringify(queueSortOf(p));
  const first = cfg.profiles[0];
  cfg.profiles.forEach((p, i) => {
    if (i > 0 && first && qs(p) !== qs(first))
      e.push(`profiles[${i}].plugins.queueSort: Invalid value: ${qs(p)}: must be the same for all profiles`);
  });
  return e;
}

function queueSortOf(p: Profile): string[] {
  const explicit = p.plugins.queueSort.enabled.map((x) => x.name);
  if (explicit.length) return explicit;
  const disabled = new Set(p.plugins.queueSort.disabled.map((x) => x.name));
  return disabled.has('*') ? [] : p.plugins.multiPoint.enabled.map((x) => x.name).filter((n) => n === 'PrioritySort' && !disabled.has(n));
}

export function parseConfigurationText(text: string): KubeSchedulerConfiguration {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`couldn't decode as KubeSchedulerConfiguration: ${(err as Error).message}`]);
  }
  return decodeConfiguration(doc);
}

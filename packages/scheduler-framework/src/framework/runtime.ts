// One profile's plugins wired per extension point (frameworkruntime.frameworkImpl): expands multiPoint,
// applies enabled/disabled sets, instantiates each plugin once, and runs the extension points in order.
import type { ExtensionPoint, PluginRef, Profile } from '../config/types.ts';
import type { CycleState } from './cycle-state.ts';
import type {
  BindPlugin,
  FilterPlugin,
  Handle,
  PermitPlugin,
  Plugin,
  PostBindPlugin,
  PostFilterPlugin,
  PostFilterResult,
  PreBindPlugin,
  PreFilterPlugin,
  PreScorePlugin,
  QueueSortPlugin,
  QueuedPodInfo,
  ReservePlugin,
  ScorePlugin,
} from './interface.ts';
import { PreFilterResult, MAX_NODE_SCORE } from './interface.ts';
import type { NodeInfo } from './node-info.ts';
import type { PodInfo } from './pod-info.ts';
import type { Registry } from './registry.ts';
import { Code, Status, type MaybeStatus } from './status.ts';

export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: PodInfo): MaybeStatus;
}

const METHOD: Record<Exclude<ExtensionPoint, 'multiPoint'>, string> = {
  preEnqueue: 'preEnqueue',
  queueSort: 'less',
  preFilter: 'preFilter',
  filter: 'filter',
  postFilter: 'postFilter',
  preScore: 'preScore',
  score: 'score',
  reserve: 'reserve',
  permit: 'permit',
  preBind: 'preBind',
  bind: 'bind',
  postBind: 'postBind',
};

export class FrameworkError extends Error {}

/** A handle whose framework-backed methods are filled in once the framework exists. */
export type HandleDeps = Omit<Handle, 'runFilterPlugins' | 'runPreFilterExtensionAddPod' | 'runPreFilterExtensionRemovePod'>;

export interface WeightedScorePlugin {
  plugin: ScorePlugin;
  weight: number;
}

export class Framework {
  readonly profileName: string;
  readonly percentageOfNodesToScore: number | undefined;
  readonly handle: Handle;
  private readonly instances = new Map<string, Plugin>();
  readonly preEnqueuePlugins: PreEnqueuePlugin[];
  readonly queueSortPlugin: QueueSortPlugin;
  readonly preFilterPlugins: PreFilterPlugin[];
  readonly filterPlugins: FilterPlugin[];
  readonly postFilterPlugins: PostFilterPlugin[];
  readonly preScorePlugins: PreScorePlugin[];
  readonly scorePlugins: WeightedScorePlugin[];
  readonly reservePlugins: ReservePlugin[];
  readonly permitPlugins: PermitPlugin[];
  readonly preBindPlugins: PreBindPlugin[];
  readonly bindPlugins: BindPlugin[];
  readonly postBindPlugins: PostBindPlugin[];

  constructor(registry: Registry, profile: Profile, deps: HandleDeps) {
    this.profileName = profile.schedulerName;
    this.percentageOfNodesToScore = profile.percentageOfNodesToScore;
    this.handle = {
      ...deps,
      runFilterPlugins: (s, p, n) => this.runFilterPlugins(s, p, n),
      runPreFilterExtensionAddPod: (s, p, a, n) => this.runPreFilterExtension(s, p, a, n, 'add'),
      runPreFilterExtensionRemovePod: (s, p, r, n) => this.runPreFilterExtension(s, p, r, n, 'remove'),
    };
    const args = new Map(profile.pluginConfig.map((c) => [c.name, c.args]));
    const instance = (name: string): Plugin => {
      let p = this.instances.get(name);
      if (p) return p;
      const factory = registry.get(name);
      if (!factory) throw new FrameworkError(`plugin "${name}" does not exist`);
      p = factory(args.get(name), this.handle);
      this.instances.set(name, p);
      return p;
    };
    const implementsPoint = (p: Plugin, ep: Exclude<ExtensionPoint, 'multiPoint'>) =>
      typeof (p as unknown as Record<string, unknown>)[METHOD[ep]] === 'function';

    const expand = (ep: Exclude<ExtensionPoint, 'multiPoint'>): { plugin: Plugin; weight: number }[] => {
      const set = profile.plugins[ep];
      const disabled = new Set(set.disabled.map((d) => d.name));
      const all = disabled.has('*');
      const out: { plugin: Plugin; weight: number }[] = [];
      const seen = new Set<string>();
      const add = (ref: PluginRef, explicit: boolean) => {
        if (seen.has(ref.name)) return;
        const p = instance(ref.name);
        if (!implementsPoint(p, ep)) {
          if (explicit) throw new FrameworkError(`plugin "${ref.name}" does not extend ${ep} plugin`);
          return;
        }
        seen.add(ref.name);
        out.push({ plugin: p, weight: ref.weight && ref.weight > 0 ? ref.weight : 1 });
      };
      for (const ref of set.enabled) add(ref, true);
      if (!all)
        for (const ref of profile.plugins.multiPoint.enabled) {
          if (disabled.has(ref.name)) continue;
          // Instantiate lazily only plugins whose factory exists; unknown names fail loudly.
          add(ref, false);
        }
      return out;
    };
    const list = <T>(ep: Exclude<ExtensionPoint, 'multiPoint'>) => expand(ep).map((e) => e.plugin as unknown as T);

    this.preEnqueuePlugins = list('preEnqueue');
    const qs = list<QueueSortPlugin>('queueSort');
    if (qs.length === 0) throw new FrameworkError('no queue sort plugin is enabled');
    if (qs.length > 1) throw new FrameworkError('only one queue sort plugin can be enabled');
    this.queueSortPlugin = qs[0] as QueueSortPlugin;
    this.preFilterPlugins = list('preFilter');
    this.filterPlugins = list('filter');
    this.postFilterPlugins = list('postFilter');
    this.preScorePlugins = list('preScore');
    this.scorePlugins = expand('score').map((e) => ({ plugin: e.plugin as unknown as ScorePlugin, weight: e.weight }));
    this.reservePlugins = list('reserve');
    this.permitPlugins = list('permit');
    this.preBindPlugins = list('preBind');
    this.bindPlugins = list('bind');
    if (this.bindPlugins.length === 0) throw new FrameworkError('at least one bind plugin is needed');
    this.postBindPlugins = list('postBind');
  }

  plugin(name: string): Plugin | undefined {
    return this.instances.get(name);
  }

  less = (a: QueuedPodInfo, b: QueuedPodInfo): boolean => this.queueSortPlugin.less(a, b);

  runPreEnqueuePlugins(pod: PodInfo): MaybeStatus {
    for (const p of this.preEnqueuePlugins) {
      const s = safe(p.name, () => p.preEnqueue(pod));
      if (s && !s.isSuccess()) return s.withPlugin(p.name);
    }
    return null;
  }

  /** Runs PreFilter; a rejection or error stops the cycle. Results narrowing the node set are intersected. */
  runPreFilterPlugins(
    state: CycleState,
    pod: PodInfo,
    nodes: readonly NodeInfo[],
  ): { status: MaybeStatus; nodeNames: ReadonlySet<string> | undefined } {
    let nodeNames: Set<string> | undefined;
    for (const p of this.preFilterPlugins) {
      let r: PreFilterResult | MaybeStatus;
      try {
        r = p.preFilter(state, pod, nodes);
      } catch (e) {
        return { status: Status.error(e).withPlugin(p.name), nodeNames: undefined };
      }
      if (r instanceof PreFilterResult) {
        if (nodeNames === undefined) nodeNames = new Set(r.nodeNames);
        else for (const n of nodeNames) if (!r.nodeNames.has(n)) nodeNames.delete(n);
        continue;
      }
      if (r === null || r.isSuccess()) continue;
      if (r.isSkip()) {
        state.skipFilterPlugins.add(p.name);
        continue;
      }
      return { status: r.withPlugin(p.name), nodeNames: undefined };
    }
    return { status: null, nodeNames };
  }

  /** The Filter plugins not skipped for this cycle, resolved once per cycle. */
  activeFilters(state: CycleState): FilterPlugin[] {
    if (state.skipFilterPlugins.size === 0) return this.filterPlugins;
    return this.filterPlugins.filter((p) => !state.skipFilterPlugins.has(p.name));
  }

  runFilterPlugins(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo, filters = this.activeFilters(state)): MaybeStatus {
    for (let i = 0; i < filters.length; i++) {
      const p = filters[i] as FilterPlugin;
      let s: MaybeStatus;
      try {
        s = p.filter(state, pod, nodeInfo);
      } catch (e) {
        return Status.error(e).withPlugin(p.name);
      }
      if (s !== null && s.code !== Code.Success) return s.code === Code.Skip ? null : s.withPlugin(p.name);
    }
    return null;
  }

  runPreFilterExtension(
    state: CycleState,
    pod: PodInfo,
    other: PodInfo,
    nodeInfo: NodeInfo,
    op: 'add' | 'remove',
  ): MaybeStatus {
    for (const p of this.preFilterPlugins) {
      if (state.skipFilterPlugins.has(p.name)) continue;
      const ext = p.preFilterExtensions?.();
      if (!ext) continue;
      const s = safe(p.name, () => (op === 'add' ? ext.addPod(state, pod, other, nodeInfo) : ext.removePod(state, pod, other, nodeInfo)));
      if (s && !s.isSuccess()) return s.withPlugin(p.name);
    }
    return null;
  }

  async runPostFilterPlugins(
    state: CycleState,
    pod: PodInfo,
    statuses: ReadonlyMap<string, Status>,
  ): Promise<{ result?: PostFilterResult; status: MaybeStatus }> {
    const reasons: string[] = [];
    for (const p of this.postFilterPlugins) {
      try {
        const r = await p.postFilter(state, pod, statuses);
        if (r.status === null || r.status.isSuccess()) return r;
        if (r.status.code !== Code.Unschedulable && r.status.code !== Code.UnschedulableAndUnresolvable)
          return { status: r.status.withPlugin(p.name) };
        reasons.push(...r.status.reasons);
      } catch (e) {
        return { status: Status.error(e).withPlugin(p.name) };
      }
    }
    return { status: new Status(Code.Unschedulable, reasons) };
  }

  /** PreScore; plugins answering Skip are left out of Score for this cycle. */
  runPreScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    for (const p of this.preScorePlugins) {
      const s = safe(p.name, () => p.preScore(state, pod, nodes));
      if (s === null || s.isSuccess()) continue;
      if (s.isSkip()) {
        state.skipScorePlugins.add(p.name);
        continue;
      }
      return s.withPlugin(p.name);
    }
    return null;
  }

  /** Score → NormalizeScore → weight, summed per node (aligned with nodes). */
  runScorePlugins(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): { totals: number[]; status: MaybeStatus } {
    const n = nodes.length;
    const totals = new Array<number>(n).fill(0);
    const scores = new Array<number>(n);
    for (const { plugin, weight } of this.scorePlugins) {
      if (state.skipScorePlugins.has(plugin.name)) continue;
      try {
        for (let i = 0; i < n; i++) scores[i] = plugin.score(state, pod, nodes[i] as NodeInfo);
        if (plugin.normalizeScore) {
          const s = plugin.normalizeScore(state, pod, nodes, scores);
          if (s && !s.isSuccess()) return { totals, status: s.withPlugin(plugin.name) };
        }
      } catch (e) {
        return { totals, status: Status.error(e).withPlugin(plugin.name) };
      }
      for (let i = 0; i < n; i++) {
        const v = scores[i] as number;
        if (v > MAX_NODE_SCORE || v < 0)
          return {
            totals,
            status: Status.error(new Error(`plugin "${plugin.name}" returns an invalid score ${v}, it should in the range of [0, 100] after normalizing`)).withPlugin(plugin.name),
          };
        totals[i] = (totals[i] as number) + v * weight;
      }
    }
    return { totals, status: null };
  }

  runReservePlugins(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus {
    for (const p of this.reservePlugins) {
      const s = safe(p.name, () => p.reserve(state, pod, nodeName));
      if (s && !s.isSuccess()) return s.withPlugin(p.name);
    }
    return null;
  }

  runUnreservePlugins(state: CycleState, pod: PodInfo, nodeName: string): void {
    // Reverse order, as Kubernetes unreserves.
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) {
      const p = this.reservePlugins[i] as ReservePlugin;
      try {
        p.unreserve(state, pod, nodeName);
      } catch {
        // Unreserve must not fail the caller.
      }
    }
  }

  runPermitPlugins(state: CycleState, pod: PodInfo, nodeName: string): MaybeStatus {
    for (const p of this.permitPlugins) {
      const s = safe(p.name, () => p.permit(state, pod, nodeName));
      if (s === null || s.isSuccess() || s.isSkip()) continue;
      if (s.code === Code.Wait) return Status.error(new Error(`plugin "${p.name}" asked to wait: Permit Wait is not supported`)).withPlugin(p.name);
      return s.withPlugin(p.name);
    }
    return null;
  }

  async runPreBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    for (const p of this.preBindPlugins) {
      let s: MaybeStatus;
      try {
        s = await p.preBind(state, pod, nodeName);
      } catch (e) {
        s = Status.error(e);
      }
      if (s && !s.isSuccess() && !s.isSkip()) return s.withPlugin(p.name);
    }
    return null;
  }

  async runBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    for (const p of this.bindPlugins) {
      let s: MaybeStatus;
      try {
        s = await p.bind(state, pod, nodeName);
      } catch (e) {
        s = Status.error(e);
      }
      if (s && s.isSkip()) continue;
      return s ? s.withPlugin(p.name) : null;
    }
    return new Status(Code.Error, ['all bind plugins skipped']);
  }

  runPostBindPlugins(state: CycleState, pod: PodInfo, nodeName: string): void {
    for (const p of this.postBindPlugins) safe(p.name, () => (p.postBind(state, pod, nodeName), null));
  }
}

function safe(plugin: string, fn: () => MaybeStatus): MaybeStatus {
  try {
    return fn();
  } catch (e) {
    return Status.error(e).withPlugin(plugin);
  }
}

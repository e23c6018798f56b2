// Runs one plugin's PreFilter+Filter or PreScore+Score(+Normalize) over a cache, for table-driven tests.
import type { Pod } from '@kemu/api';
import type { SchedulerCache } from '../cache/cache.ts';
import { CycleState } from '../framework/cycle-state.ts';
import { PreFilterResult, type FilterPlugin, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../framework/interface.ts';
import { PodInfo } from '../framework/pod-info.ts';
import { Code } from '../framework/status.ts';

export type FilterOutcome = 'ok' | { code: string; reasons: string };

/** node name → 'ok' or the rejection. */
export function runFilter(plugin: Partial<PreFilterPlugin> & FilterPlugin, pod: Pod, cache: SchedulerCache): Record<string, FilterOutcome> {
  const state = new CycleState();
  const info = new PodInfo(pod);
  const nodes = cache.nodeInfos();
  const out: Record<string, FilterOutcome> = {};
  if (plugin.preFilter) {
    const r = plugin.preFilter(state, info, nodes);
    if (r && !(r instanceof PreFilterResult)) {
      if (r.code === Code.Skip) {
        for (const n of nodes) out[n.name] = 'ok';
        return out;
      }
      if (r.code !== Code.Success) {
        for (const n of nodes) out[n.name] = { code: r.codeName(), reasons: r.message() };
        return out;
      }
    }
  }
  for (const n of nodes) {
    const s = plugin.filter(state, info, n);
    out[n.name] = s === null || s.code === Code.Success ? 'ok' : { code: s.codeName(), reasons: s.message() };
  }
  return out;
}

/** node name → final score (after normalize), or 'skip' if PreScore skipped. */
export function runScore(plugin: Partial<PreScorePlugin> & ScorePlugin, pod: Pod, cache: SchedulerCache): Record<string, number> | 'skip' {
  const state = new CycleState();
  const info = new PodInfo(pod);
  const nodes = cache.nodeInfos();
  if (plugin.preScore) {
    const s = plugin.preScore(state, info, nodes);
    if (s?.code === Code.Skip) return 'skip';
  }
  const scores = nodes.map((n) => plugin.score(state, info, n));
  plugin.normalizeScore?.(state, info, nodes, scores);
  return Object.fromEntries(nodes.map((n, i) => [n.name, scores[i] as number]));
}

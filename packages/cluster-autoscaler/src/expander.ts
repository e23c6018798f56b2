// Expanders choose among scale-up options (expander.Strategy): random, most-pods, least-waste. A list
// ("least-waste,most-pods") narrows in order, as --expander takes it; ties left at the end are broken at random.
import type { Node, Pod } from '@kemu/api';
import { podRequests } from './resources.ts';

export interface Option {
  groupId: string;
  nodeCount: number;
  pods: Pod[];
  template: Node;
}

export const EXPANDERS = ['random', 'most-pods', 'least-waste'] as const;
export type ExpanderName = (typeof EXPANDERS)[number];

/** Narrows the options to the best ones by one criterion. */
type Filter = (options: readonly Option[]) => Option[];

function best(options: readonly Option[], value: (o: Option) => number, better: (a: number, b: number) => boolean): Option[] {
  let out: Option[] = [];
  let bestValue = 0;
  for (const o of options) {
    const v = value(o);
    if (out.length === 0 || better(v, bestValue)) {
      out = [o];
      bestValue = v;
    } else if (v === bestValue) out.push(o);
  }
  return out;
}

/** most-pods: the option scheduling the most pods. */
export const mostPods: Filter = (options) => best(options, (o) => o.pods.length, (a, b) => a > b);

/** least-waste: the option leaving the least idle cpu + memory (fractions of what the new nodes add). */
export function waste(o: Option): number {
  const alloc = podRequests.allocatable(o.template);
  const req = { cpu: 0, memory: 0 };
  for (const p of o.pods) {
    const r = podRequests.of(p);
    req.cpu += r.cpu;
    req.memory += r.memory;
  }
  const cpu = alloc.cpu * o.nodeCount;
  const memory = alloc.memory * o.nodeCount;
  return (cpu > 0 ? (cpu - req.cpu) / cpu : 0) + (memory > 0 ? (memory - req.memory) / memory : 0);
}
export const leastWaste: Filter = (options) => best(options, waste, (a, b) => a < b - 1e-12);

const FILTERS: Record<ExpanderName, Filter> = { random: (o) => [...o], 'most-pods': mostPods, 'least-waste': leastWaste };

/** Parses --expander (a comma-separated list); throws naming an unknown one. */
export function parseExpanders(flag: string): ExpanderName[] {
  const names = flag.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new Error('--expander must name at least one expander');
  for (const n of names)
    if (!(EXPANDERS as readonly string[]).includes(n))
      throw new Error(`Expander ${n} not supported${n === 'priority' || n === 'price' || n === 'grpc' ? ' by the kemu cloud provider' : ''}; want one of ${EXPANDERS.join(', ')}`);
  return names as ExpanderName[];
}

/** Picks one option; random is injectable so tests are deterministic. */
export function choose(options: readonly Option[], expanders: readonly ExpanderName[], random: () => number = Math.random): Option | undefined {
  let left = [...options];
  for (const e of expanders) {
    if (left.length <= 1) break;
    left = FILTERS[e](left);
  }
  if (left.length === 0) return undefined;
  return left[Math.min(left.length - 1, Math.floor(random() * left.length))];
}

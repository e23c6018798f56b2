// Emulated resource usage of a container over time: what cAdvisor would measure on a real node. By default a
// container uses 10% of its CPU request (1m without one) and 50% of its memory request (8Mi without one);
// pod annotations override it, for every container (`kemu.dev/cpu-usage`, `kemu.dev/memory-usage`) or for one
// (`kemu.dev/cpu-usage.<container>`). A value is a quantity (constant), `step:Q0,Q1@T1,Q2@T2…` (Qi from Ti
// after the container started) or `sine:MEAN,AMPLITUDE,PERIOD` (MEAN + AMPLITUDE·sin(2πt/PERIOD)).
// Cumulative CPU is the exact integral of the rate, so counters never go backwards between scrapes.
import { parseQuantity, tryParseQuantity, type Pod } from '@kemu/api';
import { parseDuration } from '@kemu/base';

export const CPU_USAGE_ANNOTATION = 'kemu.dev/cpu-usage';
export const MEMORY_USAGE_ANNOTATION = 'kemu.dev/memory-usage';

/** The default usage as fractions of the container's requests. */
export const DEFAULT_CPU_FRACTION = 0.1;
export const DEFAULT_MEMORY_FRACTION = 0.5;
const DEFAULT_CPU_CORES = 0.001;
const DEFAULT_MEMORY_BYTES = 8 * 1024 * 1024;

/** A usage profile: the rate at t seconds after start, and its integral from 0 to t. */
export type Profile =
  | { kind: 'constant'; value: number }
  | { kind: 'step'; steps: { from: number; value: number }[] }
  | { kind: 'sine'; mean: number; amplitude: number; period: number };

/** Parses an annotation value; undefined for one that does not parse (the default applies). */
export function parseProfile(text: string): Profile | undefined {
  const s = text.trim();
  try {
    if (s.startsWith('step:')) {
      const steps = s
        .slice(5)
        .split(',')
        .map((part, i) => {
          const [q, at] = part.split('@');
          if (q === undefined || (i > 0) !== (at !== undefined)) throw new Error('step');
          return { from: at === undefined ? 0 : parseDuration(at.trim()) / 1000, value: nonNegative(q) };
        });
      for (let i = 1; i < steps.length; i++) if ((steps[i]?.from ?? 0) <= (steps[i - 1]?.from ?? 0)) return undefined;
      return { kind: 'step', steps };
    }
    if (s.startsWith('sine:')) {
      const [mean, amplitude, period] = s.slice(5).split(',');
      if (mean === undefined || amplitude === undefined || period === undefined) return undefined;
      const p = { kind: 'sine' as const, mean: nonNegative(mean), amplitude: nonNegative(amplitude), period: parseDuration(period.trim()) / 1000 };
      return p.period > 0 && p.amplitude <= p.mean ? p : undefined;
    }
    return { kind: 'constant', value: nonNegative(s) };
  } catch {
    return undefined;
  }
}

function nonNegative(q: string): number {
  const v = parseQuantity(q.trim());
  if (!(v >= 0)) throw new Error('negative');
  return v;
}

export function rateAt(p: Profile, t: number): number {
  if (p.kind === 'constant') return p.value;
  if (p.kind === 'sine') return p.mean + p.amplitude * Math.sin((2 * Math.PI * t) / p.period);
  let v = 0;
  for (const s of p.steps) if (t >= s.from) v = s.value;
  return v;
}

/** ∫₀ᵗ rate. */
export function integralTo(p: Profile, t: number): number {
  if (t <= 0) return 0;
  if (p.kind === 'constant') return p.value * t;
  if (p.kind === 'sine') return p.mean * t + ((p.amplitude * p.period) / (2 * Math.PI)) * (1 - Math.cos((2 * Math.PI * t) / p.period));
  let total = 0;
  p.steps.forEach((s, i) => {
    const end = Math.min(t, p.steps[i + 1]?.from ?? Infinity);
    if (end > s.from) total += s.value * (end - s.from);
  });
  return total;
}

interface ContainerSpecLike {
  name: string;
  resources?: { requests?: Record<string, unknown> };
}

/** The CPU (cores) and memory (bytes) profiles of one container of a pod. */
export function containerProfiles(pod: Pod, container: ContainerSpecLike): { cpu: Profile; memory: Profile } {
  const ann = pod.metadata.annotations ?? {};
  const pick = (key: string) => {
    const text = ann[`${key}.${container.name}`] ?? ann[key];
    return text === undefined ? undefined : parseProfile(text);
  };
  const requests = container.resources?.requests ?? {};
  const cpuReq = tryParseQuantity(requests['cpu']);
  const memReq = tryParseQuantity(requests['memory']);
  return {
    cpu: pick(CPU_USAGE_ANNOTATION) ?? { kind: 'constant', value: cpuReq ? cpuReq * DEFAULT_CPU_FRACTION : DEFAULT_CPU_CORES },
    memory: pick(MEMORY_USAGE_ANNOTATION) ?? { kind: 'constant', value: Math.round(memReq ? memReq * DEFAULT_MEMORY_FRACTION : DEFAULT_MEMORY_BYTES) },
  };
}

/** What cAdvisor reports of a running container at one instant. */
export interface ContainerUsage {
  name: string;
  /** When the container started (ms since the epoch). */
  startedAt: number;
  /** The current rate, in nanocores. */
  usageNanoCores: number;
  /** CPU time used since it started, in nanoseconds. */
  usageCoreNanoSeconds: number;
  workingSetBytes: number;
}

/** CPU time (ns) under the container's current profile between two instants (ms) since it started. */
export function cpuNanosBetween(pod: Pod, container: ContainerSpecLike, startedAt: number, from: number, to: number): number {
  const { cpu } = containerProfiles(pod, container);
  return Math.round((integralTo(cpu, (to - startedAt) / 1000) - integralTo(cpu, (from - startedAt) / 1000)) * 1e9);
}

/** A running container's usage `now` (ms), `startedAt` ms after the epoch. */
export function containerUsage(pod: Pod, container: ContainerSpecLike, startedAt: number, now: number): ContainerUsage {
  const { cpu, memory } = containerProfiles(pod, container);
  const t = Math.max(0, (now - startedAt) / 1000);
  return {
    name: container.name,
    startedAt,
    usageNanoCores: Math.round(rateAt(cpu, t) * 1e9),
    usageCoreNanoSeconds: Math.round(integralTo(cpu, t) * 1e9),
    workingSetBytes: Math.round(rateAt(memory, t)),
  };
}

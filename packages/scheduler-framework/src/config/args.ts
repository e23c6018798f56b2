// Decoding and validation of the in-tree plugins' args (NodeResourcesFitArgs, PodTopologySpreadArgs, …),
// with Kubernetes' validation messages.
import type { TopologySpreadConstraint } from '@kemu/api';
import { Names } from '../plugins/names.ts';
import type { Obj, Reader } from './reader.ts';

const META = ['apiVersion', 'kind'];

function resources(r: Reader, v: unknown, path: string): { name: string; weight: number }[] | undefined {
  const a = r.arr(v, path);
  if (!a) return undefined;
  return a.map((x, i) => {
    const p = `${path}[${i}]`;
    const o = r.obj(x, p, ['name', 'weight']) ?? {};
    const name = r.str(o.name, `${p}.name`) ?? '';
    const weight = r.num(o.weight, `${p}.weight`) ?? 1;
    if (weight < 1 || weight > 100) r.fail(`${p}.weight`, `Invalid value: ${weight}: resource weight of ${name} not in valid range [1, 100]`);
    return { name, weight };
  });
}

function nodeResourcesFit(r: Reader, a: Obj, path: string): Obj {
  const out: Obj = {};
  const ir = r.strList(a.ignoredResources, `${path}.ignoredResources`);
  if (ir) out.ignoredResources = ir;
  const ig = r.strList(a.ignoredResourceGroups, `${path}.ignoredResourceGroups`);
  if (ig) out.ignoredResourceGroups = ig;
  const sp = `${path}.scoringStrategy`;
  const s = r.obj(a.scoringStrategy, sp, ['type', 'resources', 'requestedToCapacityRatio']);
  if (s) {
    const st: Obj = {};
    const type = r.str(s.type, `${sp}.type`) ?? 'LeastAllocated';
    if (!['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'].includes(type))
      r.fail(`${sp}.type`, `Unsupported value: "${type}": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`);
    st.type = type;
    const res = resources(r, s.resources, `${sp}.resources`);
    if (res) st.resources = res;
    const rp = `${sp}.requestedToCapacityRatio`;
    const rtc = r.obj(s.requestedToCapacityRatio, rp, ['shape']);
    if (rtc) {
      const shape = (r.arr(rtc.shape, `${rp}.shape`) ?? []).map((x, i) => {
        const p = `${rp}.shape[${i}]`;
        const o = r.obj(x, p, ['utilization', 'score']) ?? {};
        const utilization = r.num(o.utilization, `${p}.utilization`) ?? 0;
        const score = r.num(o.score, `${p}.score`) ?? 0;
        if (utilization < 0 || utilization > 100) r.fail(`${p}.utilization`, `Invalid value: ${utilization}: not in valid range [0, 100]`);
        if (score < 0 || score > 10) r.fail(`${p}.score`, `Invalid value: ${score}: not in valid range [0, 10]`);
        return { utilization, score };
      });
      if (shape.length === 0) r.fail(`${rp}.shape`, 'Required value: at least one point must be specified');
      for (let i = 1; i < shape.length; i++)
        if ((shape[i]?.utilization ?? 0) <= (shape[i - 1]?.utilization ?? 0))
          r.fail(`${rp}.shape[${i}].utilization`, `Invalid value: ${shape[i]?.utilization}: utilization values must be sorted in increasing order`);
      st.requestedToCapacityRatio = { shape };
    } else if (type === 'RequestedToCapacityRatio' && s.requestedToCapacityRatio !== undefined) {
      r.fail(rp, 'Required value');
    }
    out.scoringStrategy = st;
  }
  return out;
}

function topologySpread(r: Reader, a: Obj, path: string): Obj {
  const out: Obj = {};
  const dt = r.str(a.defaultingType, `${path}.defaultingType`);
  if (dt !== undefined) {
    if (dt !== 'System' && dt !== 'List') r.fail(`${path}.defaultingType`, `Unsupported value: "${dt}": supported values: "List", "System"`);
    out.defaultingType = dt;
  }
  const list = r.arr(a.defaultConstraints, `${path}.defaultConstraints`);
  if (list) {
    const seen = new Set<string>();
    out.defaultConstraints = list.map((x, i) => {
      const p = `${path}.defaultConstraints[${i}]`;
      const o =
        r.obj(x, p, ['maxSkew', 'topologyKey', 'whenUnsatisfiable', 'labelSelector', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys']) ?? {};
      const maxSkew = r.num(o.maxSkew, `${p}.maxSkew`) ?? 0;
      if (maxSkew <= 0) r.fail(`${p}.maxSkew`, `Invalid value: ${maxSkew}: must be greater than zero`);
      const topologyKey = r.str(o.topologyKey, `${p}.topologyKey`) ?? '';
      if (topologyKey === '') r.fail(`${p}.topologyKey`, 'Required value: can not be empty');
      const when = r.str(o.whenUnsatisfiable, `${p}.whenUnsatisfiable`) ?? '';
      if (when !== 'DoNotSchedule' && when !== 'ScheduleAnyway')
        r.fail(`${p}.whenUnsatisfiable`, `Unsupported value: "${when}": supported values: "DoNotSchedule", "ScheduleAnyway"`);
      if (o.labelSelector !== undefined) r.fail(`${p}.labelSelector`, 'Forbidden: constraint must not define a selector, as they deduced for each pod');
      const key = `${topologyKey}/${when}`;
      if (seen.has(key)) r.fail(p, `Duplicate value: {"${topologyKey}" "${when}"}`);
      seen.add(key);
      const c: TopologySpreadConstraint = { maxSkew, topologyKey, whenUnsatisfiable: when as TopologySpreadConstraint['whenUnsatisfiable'] };
      return c;
    });
  }
  const defs = (out.defaultConstraints as unknown[] | undefined) ?? [];
  if ((out.defaultingType ?? 'System') === 'System' && defs.length > 0 && a.defaultingType !== undefined)
    r.fail(`${path}.defaultingType`, 'Invalid value: "System": when .defaultingType is "System", .defaultConstraints must be empty');
  return out;
}

function interPodAffinity(r: Reader, a: Obj, path: string): Obj {
  const out: Obj = {};
  const w = r.num(a.hardPodAffinityWeight, `${path}.hardPodAffinityWeight`);
  if (w !== undefined) {
    if (w < 0 || w > 100) r.fail(`${path}.hardPodAffinityWeight`, `Invalid value: ${w}: not in valid range [0, 100]`);
    out.hardPodAffinityWeight = w;
  }
  const ig = r.bool(a.ignorePreferredTermsOfExistingPods, `${path}.ignorePreferredTermsOfExistingPods`);
  if (ig !== undefined) out.ignorePreferredTermsOfExistingPods = ig;
  return out;
}

function defaultPreemption(r: Reader, a: Obj, path: string): Obj {
  const out: Obj = {};
  const pct = r.num(a.minCandidateNodesPercentage, `${path}.minCandidateNodesPercentage`);
  const abs = r.num(a.minCandidateNodesAbsolute, `${path}.minCandidateNodesAbsolute`);
  if (pct !== undefined) {
    if (pct < 0 || pct > 100) r.fail(`${path}.minCandidateNodesPercentage`, `Invalid value: ${pct}: not in valid range [0, 100]`);
    out.minCandidateNodesPercentage = pct;
  }
  if (abs !== undefined) {
    if (abs < 0) r.fail(`${path}.minCandidateNodesAbsolute`, `Invalid value: ${abs}: not in valid range [0, inf)`);
    out.minCandidateNodesAbsolute = abs;
  }
  if (pct === 0 && abs === 0)
    r.fail(path, 'Invalid value: minCandidateNodesPercentage and minCandidateNodesAbsolute: cannot be zero at the same time');
  return out;
}

const DECODERS: Record<string, { kind: string; known: string[]; decode: (r: Reader, a: Obj, path: string) => Obj }> = {
  [Names.NodeResourcesFit]: { kind: 'NodeResourcesFitArgs', known: ['ignoredResources', 'ignoredResourceGroups', 'scoringStrategy'], decode: nodeResourcesFit },
  [Names.PodTopologySpread]: { kind: 'PodTopologySpreadArgs', known: ['defaultConstraints', 'defaultingType'], decode: topologySpread },
  [Names.InterPodAffinity]: { kind: 'InterPodAffinityArgs', known: ['hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods'], decode: interPodAffinity },
  [Names.DefaultPreemption]: { kind: 'DefaultPreemptionArgs', known: ['minCandidateNodesPercentage', 'minCandidateNodesAbsolute'], decode: defaultPreemption },
  [Names.NodeResourcesBalancedAllocation]: {
    kind: 'NodeResourcesBalancedAllocationArgs',
    known: ['resources'],
    decode: (r, a, p) => {
      const res = resources(r, a.resources, `${p}.resources`);
      return res ? { resources: res } : {};
    },
  },
  // addedAffinity is not supported by kemu; refusing it beats silently ignoring it.
  [Names.NodeAffinity]: { kind: 'NodeAffinityArgs', known: [], decode: () => ({}) },
};

export function decodePluginArgs(r: Reader, name: string, v: unknown, path: string): Obj {
  const d = DECODERS[name];
  if (!d) {
    const o = r.obj(v, path, Object.keys((v as Obj | undefined) ?? {}));
    return o ?? {};
  }
  const a = r.obj(v, path, [...META, ...d.known]) ?? {};
  if (a.kind !== undefined && a.kind !== d.kind) r.fail(`${path}.kind`, `Invalid value: "${String(a.kind)}": expected ${d.kind}`);
  return d.decode(r, a, path);
}

// Whether one set of rules covers another (component-helpers' validation.Covers), and the missing rules
// compacted as Kubernetes prints them in escalation errors (CompactRules + CompactString, sorted).
import { RBAC_ALL, type PolicyRule } from '@kemu/api';
import { compactString } from './rbac-rules.ts';

const NONE: readonly string[] = [];

/** BreakdownRule: one rule per group × resource × verb (× resourceName), and per non-resource URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? NONE;
  for (const group of rule.apiGroups ?? NONE)
    for (const resource of rule.resources ?? NONE)
      for (const verb of verbs) {
        const names = rule.resourceNames ?? NONE;
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
  for (const url of rule.nonResourceURLs ?? NONE) for (const verb of verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: readonly string[], x: string) => set.includes(x);
const hasAll = (set: readonly string[], xs: readonly string[]) => xs.every((x) => set.includes(x));

function resourceCoversAll(set: readonly string[], covers: readonly string[]): boolean {
  if (has(set, RBAC_ALL) || hasAll(set, covers)) return true;
  for (const path of covers) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

/** ruleCovers: the owner rule allows everything the (broken-down) sub rule does. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ov = owner.verbs ?? NONE;
  const og = owner.apiGroups ?? NONE;
  const on = owner.resourceNames ?? NONE;
  const sn = sub.resourceNames ?? NONE;
  const verbs = has(ov, RBAC_ALL) || hasAll(ov, sub.verbs ?? NONE);
  const groups = has(og, RBAC_ALL) || hasAll(og, sub.apiGroups ?? NONE);
  const resources = resourceCoversAll(owner.resources ?? NONE, sub.resources ?? NONE);
  const urls = (sub.nonResourceURLs ?? NONE).every((p) => (owner.nonResourceURLs ?? NONE).some((o) => nonResourceURLCovers(o, p)));
  const names = sn.length === 0 ? on.length === 0 : on.length === 0 || hasAll(on, sn);
  return verbs && groups && resources && names && urls;
}

/** Covers: whether ownerRules cover servantRules, and the broken-down rules they do not. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) for (const sub of breakdownRule(servant)) if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return { covered: missing.length === 0, missing };
}

/** The broken-down pieces of servantRules no owner rule grants (empty: covered); reconciliation appends them. */
export function uncoveredRules(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): PolicyRule[] {
  return covers(ownerRules, servantRules).missing;
}

/** CompactRules: single group/resource rules that differ only by verb become one rule. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames ?? NONE).length === 0 && (r.nonResourceURLs ?? NONE).length === 0 && (r.apiGroups ?? NONE).length === 1 && (r.resources ?? NONE).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups?.[0]}\0${r.resources?.[0]}`;
    const hit = simple.get(key);
    if (hit) hit.verbs = [...(hit.verbs ?? []), ...(r.verbs ?? [])];
    else simple.set(key, { apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])], verbs: [...(r.verbs ?? [])] });
  }
  return [...out, ...simple.values()];
}

/** The missing rules as the escalation error lists them: compacted, printed, deduplicated and sorted. */
export function describeMissing(missing: readonly PolicyRule[]): string[] {
  return [...new Set(compactRules(missing).map(compactString))].sort();
}

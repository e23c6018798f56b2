// Whether one set of RBAC rules grants everything another does, as Kubernetes' validation.Covers: the
// servant rules are broken down into one-verb, one-resource rules and each must be granted by some owner
// rule. Reconciliation appends the uncovered pieces; the aggregation controller dedupes with it.
import type { PolicyRule } from './types.ts';

const ALL = '*';

/** One rule per (group, resource, verb[, name]) and per (url, verb), as rbac's BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        } else {
          out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

const hasAll = (owner: readonly string[] | undefined, servant: readonly string[] | undefined): boolean =>
  (servant ?? []).every((s) => (owner ?? []).includes(s) || (owner ?? []).includes(ALL));

function resourcesCovered(owner: readonly string[] | undefined, servant: readonly string[] | undefined): boolean {
  const own = owner ?? [];
  return (servant ?? []).every((s) => {
    if (own.includes(ALL) || own.includes(s)) return true;
    // "*/status" grants the status subresource of every resource.
    const slash = s.indexOf('/');
    return slash >= 0 && own.includes(`*${s.slice(slash)}`);
  });
}

function urlsCovered(owner: readonly string[] | undefined, servant: readonly string[] | undefined): boolean {
  const own = owner ?? [];
  return (servant ?? []).every((s) =>
    own.some((o) => o === ALL || o === s || (o.endsWith('*') && s.startsWith(o.slice(0, -1)))),
  );
}

/** Whether owner grants all of servant (servant is expected to be one broken-down rule). */
export function ruleCovers(owner: PolicyRule, servant: PolicyRule): boolean {
  const names = servant.resourceNames ?? [];
  const ownNames = owner.resourceNames ?? [];
  // An owner without resourceNames grants every name; one with names never grants the unnamed request.
  const namesOk = ownNames.length === 0 || (names.length > 0 && names.every((n) => ownNames.includes(n)));
  return (
    hasAll(owner.verbs, servant.verbs) &&
    hasAll(owner.apiGroups, servant.apiGroups) &&
    resourcesCovered(owner.resources, servant.resources) &&
    urlsCovered(owner.nonResourceURLs, servant.nonResourceURLs) &&
    namesOk
  );
}

/** The broken-down pieces of servant that no owner rule grants (empty: owner covers servant). */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const piece of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, piece))) missing.push(piece);
    }
  }
  return missing;
}

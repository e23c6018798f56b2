// Whether a policy rule covers a request, as Kubernetes' rbac.RuleAllows: verb, API group, resource (with
// `resource/subresource`, `*` and `*/subresource`) and resource name, or verb and non-resource URL (exact, `*`,
// or a `prefix*`). Kept here for the Node authorizer's static rules; the RBAC authorizer matches the same way
// (the integrator may point both at one copy).
import type { Attributes, NonResourceRule, ResourceRule } from '../types.ts';

export type PolicyRule = ResourceRule | NonResourceRule;

const has = (list: readonly string[], v: string): boolean => list.includes('*') || list.includes(v);

function resourceMatches(resources: readonly string[], combined: string, subresource: string): boolean {
  for (const r of resources) {
    if (r === '*' || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

function urlMatches(urls: readonly string[], path: string): boolean {
  for (const u of urls) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.resourceRequest) {
    if (!('resources' in rule)) return false;
    const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
    return (
      has(rule.apiGroups, a.apiGroup) &&
      resourceMatches(rule.resources, combined, a.subresource) &&
      (rule.resourceNames.length === 0 || rule.resourceNames.includes(a.name))
    );
  }
  return 'nonResourceURLs' in rule && urlMatches(rule.nonResourceURLs, a.path);
}

export function rulesAllow(a: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(a, r));
}

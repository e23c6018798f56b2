// One PolicyRule against one request, as Kubernetes' RuleAllows (pkg/apis/rbac/v1/evaluation_helpers.go):
// "*" matches every verb, group and resource; "resource/subresource" and "*/subresource" match subresources;
// resourceNames, when present, must name the object (a request without a name, e.g. list or create, never
// matches such a rule); a non-resource URL rule ending in "*" matches by prefix.
import { RBAC_ALL, type PolicyRule } from '@kemu/api';
import type { Attributes } from './types.ts';

const NONE: readonly string[] = [];

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs ?? NONE) if (v === RBAC_ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? NONE) if (g === RBAC_ALL || g === group) return true;
  return false;
}

/** combined is "resource" or "resource/subresource". */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? NONE) {
    if (r === RBAC_ALL || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? NONE;
  if (names.length === 0) return true;
  for (const n of names) if (n === name) return true;
  return false;
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? NONE) {
    if (u === RBAC_ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

/** Whether any of the rules allows the request (the RBAC authorizer's visitor and the Node authorizer's NodeRules). */
export function rulesAllow(a: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(a, r));
}

/** Go's %q of a []string: ["a" "b"]. */
export function goQuotedList(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** rbacv1helpers.CompactString: the rule as escalation errors print it, e.g. {APIGroups:[""], Resources:["pods"], Verbs:["get"]}. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, v: readonly string[] | undefined) => {
    if (v && v.length > 0) parts.push(`${label}:${goQuotedList(v)}`);
  };
  add('APIGroups', r.apiGroups);
  add('Resources', r.resources);
  add('NonResourceURLs', r.nonResourceURLs);
  add('ResourceNames', r.resourceNames);
  add('Verbs', r.verbs);
  return `{${parts.join(', ')}}`;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated as [a, b]. */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 0) return '';
  if (messages.length === 1) return messages[0] as string;
  const seen = [...new Set(messages)];
  return seen.length === 1 ? (seen[0] as string) : `[${seen.join(', ')}]`;
}

// Whether a request is sent to a webhook (k8s.io/apiserver pkg/admission/plugin/webhook/predicates): its rules
// (operations, groups, versions, resources with subresources, scope), namespaceSelector and objectSelector.
// matchPolicy: every kemu resource is served at one group/version, so Equivalent and Exact match alike.
import { labelSelectorAsSelector, R, selectorMatches, type KubeObject, type LabelSelector } from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext } from '../types.ts';
import { isObj } from '../types.ts';

type Obj = Record<string, unknown>;
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function resourceMatches(patterns: string[], resource: string, sub: string): boolean {
  return patterns.some((p) => {
    if (p === '*/*') return true;
    const [res, psub] = p.split('/', 2) as [string, string | undefined];
    if (psub === undefined) return sub === '' && (res === '*' || res === resource);
    return (res === '*' || res === resource) && (psub === '*' || psub === sub);
  });
}

export function ruleMatches(rule: Obj, attrs: AdmissionAttributes): boolean {
  const ops = strs(rule.operations);
  if (!ops.includes('*') && !ops.includes(attrs.operation)) return false;
  const groups = strs(rule.apiGroups);
  if (!groups.includes('*') && !groups.includes(attrs.resource.group)) return false;
  const versions = strs(rule.apiVersions);
  if (!versions.includes('*') && !versions.includes(attrs.resource.version)) return false;
  if (!resourceMatches(strs(rule.resources), attrs.resource.plural, attrs.subresource ?? '')) return false;
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  // A Namespace is cluster-scoped although its requests carry its name as namespace.
  const clusterScoped = !attrs.resource.namespaced;
  if (scope === 'Cluster') return clusterScoped;
  if (scope === 'Namespaced') return !clusterScoped;
  return true;
}

export function rulesMatch(hook: Obj, attrs: AdmissionAttributes): boolean {
  return (Array.isArray(hook.rules) ? hook.rules : []).some((r) => isObj(r) && ruleMatches(r, attrs));
}

const labelsOf = (o: KubeObject | undefined): Record<string, string> | undefined => o?.metadata?.labels;

function selectorOf(v: unknown): LabelSelector | undefined {
  if (!isObj(v)) return undefined;
  if (Object.keys(v).length === 0) return undefined;
  if ((v.matchLabels === undefined || (isObj(v.matchLabels) && Object.keys(v.matchLabels).length === 0)) && (!Array.isArray(v.matchExpressions) || v.matchExpressions.length === 0)) return undefined;
  return v as LabelSelector;
}

/** objectSelector: the new or the old object's labels match; an empty selector matches everything. */
export function objectSelectorMatches(hook: Obj, attrs: AdmissionAttributes): boolean {
  const sel = selectorOf(hook.objectSelector);
  if (!sel) return true;
  const parsed = labelSelectorAsSelector(sel);
  return [attrs.object, attrs.oldObject].some((o) => o !== undefined && selectorMatches(parsed, labelsOf(o) ?? {}));
}

/**
 * namespaceSelector: cluster-scoped objects always match, except Namespaces, matched on their own labels; a
 * namespaced object is matched on its namespace's labels.
 */
export async function namespaceSelectorMatches(hook: Obj, attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<boolean> {
  const sel = selectorOf(hook.namespaceSelector);
  if (!sel) return true;
  const parsed = labelSelectorAsSelector(sel);
  if (attrs.resource === R.namespaces) return selectorMatches(parsed, labelsOf(attrs.object ?? attrs.oldObject) ?? {});
  if (!attrs.resource.namespaced || !attrs.namespace) return true;
  const ns = await ctx.getNamespace?.(attrs.namespace);
  return selectorMatches(parsed, labelsOf(ns) ?? {});
}

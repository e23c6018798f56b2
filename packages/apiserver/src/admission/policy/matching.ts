// Whether a request falls under a policy's matchConstraints or a binding's matchResources (Kubernetes'
// admission/plugin/policy/matching): resource rules with operations, scope and resourceNames, exclude rules
// winning, the namespace selector (the object's own labels for a Namespace; cluster-scoped objects always
// match) and the object selector (new or old object). kemu serves one version per resource, so the
// Equivalent and Exact match policies agree.
import { labelSelectorAsSelector, LabelSelectorError, R, selectorMatches, type KubeObject, type LabelSelector } from '@kemu/api';
import type { AdmissionAttributes } from '../types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const has = (list: string[], v: string): boolean => list.includes('*') || list.includes(v);

function resourceMatches(resources: string[], plural: string, sub: string | undefined): boolean {
  const want = sub ? `${plural}/${sub}` : plural;
  return resources.some((r) => {
    if (r === '*/*' || r === want) return true;
    const [rr, rs] = r.split('/', 2) as [string, string | undefined];
    if (rs === undefined) return rr === '*' && !sub;
    return (rr === '*' || rr === plural) && (rs === '*' || rs === sub) && sub !== undefined;
  });
}

export function ruleMatches(rule: unknown, attrs: AdmissionAttributes): boolean {
  if (!isObj(rule)) return false;
  const r = attrs.resource;
  if (!has(strings(rule.operations), attrs.operation)) return false;
  if (!has(strings(rule.apiGroups), r.group) || !has(strings(rule.apiVersions), r.version)) return false;
  if (!resourceMatches(strings(rule.resources), r.plural, attrs.subresource)) return false;
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  if (scope === 'Cluster' && r.namespaced) return false;
  if (scope === 'Namespaced' && !r.namespaced) return false;
  const names = strings(rule.resourceNames);
  return names.length === 0 || names.includes(attrs.name);
}

/** A selector as Kubernetes reads it here: absent matches everything; a broken one matches nothing. */
function selectorOf(v: unknown): ReturnType<typeof labelSelectorAsSelector> | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return labelSelectorAsSelector(v as LabelSelector);
  } catch (e) {
    if (e instanceof LabelSelectorError) return { requirements: [], nothing: true };
    throw e;
  }
}

const labelsOf = (o: KubeObject | undefined): Record<string, string> | undefined => o?.metadata?.labels;

export interface MatchInputs {
  attrs: AdmissionAttributes;
  /** The request's namespace object, read only when a namespace selector needs it. */
  namespace: () => Promise<KubeObject | undefined>;
}

/** `rulesOptional`: a binding's matchResources without resourceRules does not narrow by resource. */
export async function matchResources(m: unknown, inp: MatchInputs, rulesOptional = false): Promise<boolean> {
  if (!isObj(m)) return rulesOptional;
  const { attrs } = inp;
  const include = Array.isArray(m.resourceRules) ? m.resourceRules : [];
  if (!(rulesOptional && include.length === 0) && !include.some((r) => ruleMatches(r, attrs))) return false;
  if (Array.isArray(m.excludeResourceRules) && m.excludeResourceRules.some((r) => ruleMatches(r, attrs))) return false;
  const os = selectorOf(m.objectSelector);
  if (os && os.requirements.length + (os.nothing ? 1 : 0) > 0) {
    if (!selectorMatchesObj(os, attrs.object) && !selectorMatchesObj(os, attrs.oldObject)) return false;
  }
  const nss = selectorOf(m.namespaceSelector);
  if (nss && nss.requirements.length + (nss.nothing ? 1 : 0) > 0) {
    const isNamespace = attrs.resource === R.namespaces || (attrs.resource.group === '' && attrs.resource.plural === 'namespaces');
    if (isNamespace) return selectorMatches(nss, labelsOf(attrs.object ?? attrs.oldObject) ?? {});
    if (!attrs.resource.namespaced) return true;
    const ns = await inp.namespace();
    return selectorMatches(nss, labelsOf(ns) ?? {});
  }
  return true;
}

function selectorMatchesObj(sel: ReturnType<typeof labelSelectorAsSelector>, o: KubeObject | undefined): boolean {
  return o !== undefined && selectorMatches(sel, labelsOf(o) ?? {});
}

// The audit.k8s.io Policy: loaded and validated as Kubernetes' policy reader does (same error texts), then
// evaluated rule by rule, first match wins, as its policy checker does. No match means level None.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { fieldErrors } from '../validation/field.ts';
import { isDNS1123Subdomain } from '@kemu/api';
import type { RequestAttributes } from './request-info.ts';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

const GROUP_VERSIONS = new Set(['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1']);

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

export class PolicyError extends Error {}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function aggregate(msgs: string[]): string {
  return msgs.length === 1 ? (msgs[0] as string) : `[${msgs.join(', ')}]`;
}

function ruleErrors(raw: Record<string, unknown>, i: number): string[] {
  const p = `rules[${i}]`;
  const errs: string[] = [];
  const msg = (c: { field?: string; message?: string }) => `${c.field}: ${c.message}`;
  const level = raw.level ?? '';
  if (level === '') errs.push(msg(fieldErrors.required(`${p}.level`, '')));
  else if (typeof level !== 'string' || !(LEVELS as readonly string[]).includes(level))
    errs.push(`${p}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${LEVELS.map((l) => JSON.stringify(l)).join(', ')}`);
  const urls = strings(raw.nonResourceURLs);
  urls.forEach((u, j) => {
    if (u === '*') return;
    if (!u.startsWith('/')) errs.push(msg(fieldErrors.invalid(`${p}.nonResourceURLs[${j}]`, u, "non-resource URL rules must begin with a '/' character")));
    if (u !== '' && u.slice(0, -1).includes('*')) errs.push(msg(fieldErrors.invalid(`${p}.nonResourceURLs[${j}]`, u, "non-resource URL wildcards '*' must be the final character of the rule")));
  });
  const resources = Array.isArray(raw.resources) ? raw.resources.map(obj) : [];
  for (const gr of resources) {
    const group = typeof gr.group === 'string' ? gr.group : '';
    if (group !== '') {
      const m = isDNS1123Subdomain(group);
      if (m.length) errs.push(msg(fieldErrors.invalid(`${p}.resources.group`, group, m.join(','))));
    }
    const names = strings(gr.resourceNames);
    if (names.length > 0 && strings(gr.resources).length === 0)
      errs.push(msg(fieldErrors.invalid(`${p}.resources.resourceNames`, names, 'using resourceNames requires at least one resource')));
  }
  strings(raw.omitStages).forEach((s, j) => {
    if (!(STAGES as readonly string[]).includes(s)) errs.push(msg(fieldErrors.invalid(`${p}.omitStages[${j}]`, s, `allowed stages are ${STAGES.join(',')}`)));
  });
  if (urls.length > 0 && (resources.length > 0 || strings(raw.namespaces).length > 0))
    errs.push(msg(fieldErrors.invalid(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs')));
  return errs;
}

/** Parses a Policy document (YAML or JSON); throws PolicyError with Kubernetes' message. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new PolicyError(`failed decoding: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const o = obj(doc);
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const kind = typeof o.kind === 'string' ? o.kind : '';
  if (kind === '') throw new PolicyError(`failed decoding: Object 'Kind' is missing in '${JSON.stringify(doc ?? null)}'`);
  if (!GROUP_VERSIONS.has(apiVersion) || kind !== 'Policy') {
    throw new PolicyError(`failed decoding: no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`);
  }
  const rawRules = Array.isArray(o.rules) ? o.rules.map(obj) : [];
  const errs = rawRules.flatMap((r, i) => ruleErrors(r, i));
  if (errs.length) throw new PolicyError(aggregate(errs));
  if (rawRules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  const omitStages = strings(o.omitStages) as Stage[];
  return {
    omitStages,
    omitManagedFields: o.omitManagedFields === true,
    rules: rawRules.map((r) => ({
      level: r.level as Level,
      users: strings(r.users),
      userGroups: strings(r.userGroups),
      verbs: strings(r.verbs),
      namespaces: strings(r.namespaces),
      nonResourceURLs: strings(r.nonResourceURLs),
      resources: (Array.isArray(r.resources) ? r.resources.map(obj) : []).map((gr) => ({
        group: typeof gr.group === 'string' ? gr.group : '',
        resources: strings(gr.resources),
        resourceNames: strings(gr.resourceNames),
      })),
      // A rule's stages add to the policy's (Kubernetes' NewChecker unions them).
      omitStages: [...new Set([...omitStages, ...(strings(r.omitStages) as Stage[])])],
      ...(typeof r.omitManagedFields === 'boolean' ? { omitManagedFields: r.omitManagedFields } : {}),
    })),
  };
}

/** Reads --audit-policy-file; errors read as Kubernetes' LoadPolicyFromFile words them. */
export function loadPolicyFile(file: string): Policy {
  if (file === '') throw new PolicyError('file path not specified');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PolicyError(`failed to read file path "${file}": ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return parsePolicy(text);
  } catch (e) {
    throw new PolicyError(`${e instanceof Error ? e.message : String(e)}: from file ${file}`);
  }
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(r: PolicyRule, a: RequestAttributes): boolean {
  if (!a.isResourceRequest) return false;
  if (r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false;
  if (r.resources.length === 0) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

export function ruleMatches(r: PolicyRule, a: RequestAttributes): boolean {
  if (r.users.length > 0 && !r.users.includes(a.user.username)) return false;
  if (r.userGroups.length > 0 && !a.user.groups.some((g) => r.userGroups.includes(g))) return false;
  if (r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return matchesResource(r, a);
  if (r.nonResourceURLs.length > 0) return !a.isResourceRequest && r.nonResourceURLs.some((s) => pathMatches(a.path, s));
  return true;
}

/** The first matching rule decides; none matching means level None (Kubernetes' DefaultAuditLevel). */
export function evaluate(p: Policy, a: RequestAttributes): RequestAuditConfig {
  for (const r of p.rules) {
    if (ruleMatches(r, a)) return { level: r.level, omitStages: new Set(r.omitStages), omitManagedFields: r.omitManagedFields ?? p.omitManagedFields };
  }
  return { level: 'None', omitStages: new Set(p.omitStages), omitManagedFields: p.omitManagedFields };
}

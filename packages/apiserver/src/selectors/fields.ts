// The fieldSelector query parameter: `a=b`, `a==b`, `a!=b`, comma-separated AND, empty values, backslash
// escapes (fields.ParseSelector), and the one table of fields each resource supports. An unknown field is
// a 400 "field label not supported: x", as Kubernetes' field label conversion answers.
import { errors, R } from '@kemu/api';
import type { KubeObject, ResourceInfo } from '@kemu/api';

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
}

export interface FieldSelectorMatcher extends FieldSelector {
  matches(fields: Record<string, string>): boolean;
}

type Getter = (obj: KubeObject) => string;

function path(obj: unknown, ...keys: string[]): unknown {
  let cur: unknown = obj;
  for (const k of keys) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

const str =
  (...keys: string[]): Getter =>
  (obj) => {
    const v = path(obj, ...keys);
    return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  };

const bool =
  (...keys: string[]): Getter =>
  (obj) =>
    path(obj, ...keys) === true ? 'true' : 'false';

const num =
  (...keys: string[]): Getter =>
  (obj) => {
    const v = path(obj, ...keys);
    return String(typeof v === 'number' ? v : 0);
  };

const coreEventFields: Record<string, Getter> = {
  'involvedObject.kind': str('involvedObject', 'kind'),
  'involvedObject.namespace': str('involvedObject', 'namespace'),
  'involvedObject.name': str('involvedObject', 'name'),
  'involvedObject.uid': str('involvedObject', 'uid'),
  'involvedObject.apiVersion': str('involvedObject', 'apiVersion'),
  'involvedObject.resourceVersion': str('involvedObject', 'resourceVersion'),
  'involvedObject.fieldPath': str('involvedObject', 'fieldPath'),
  reason: str('reason'),
  reportingComponent: str('reportingComponent'),
  source: str('source', 'component'),
  type: str('type'),
};

/** Per-resource fields beyond metadata.name / metadata.namespace (keyed by "plural.group"). */
const EXTRA_FIELDS: Record<string, Record<string, Getter>> = {
  [key(R.pods)]: {
    'spec.nodeName': str('spec', 'nodeName'),
    'spec.restartPolicy': str('spec', 'restartPolicy'),
    'spec.schedulerName': str('spec', 'schedulerName'),
    'spec.serviceAccountName': str('spec', 'serviceAccountName'),
    'spec.hostNetwork': bool('spec', 'hostNetwork'),
    'status.phase': str('status', 'phase'),
    'status.podIP': str('status', 'podIP'),
    'status.nominatedNodeName': str('status', 'nominatedNodeName'),
  },
  [key(R.events)]: coreEventFields,
  // events.k8s.io/v1 names the same stored fields differently (its field label conversion).
  [key(R.eventsV1)]: {
    'regarding.kind': str('regarding', 'kind'),
    'regarding.namespace': str('regarding', 'namespace'),
    'regarding.name': str('regarding', 'name'),
    'regarding.uid': str('regarding', 'uid'),
    'regarding.apiVersion': str('regarding', 'apiVersion'),
    'regarding.resourceVersion': str('regarding', 'resourceVersion'),
    'regarding.fieldPath': str('regarding', 'fieldPath'),
    reason: str('reason'),
    reportingController: str('reportingController'),
    type: str('type'),
  },
  [key(R.nodes)]: { 'spec.unschedulable': bool('spec', 'unschedulable') },
  [key(R.namespaces)]: { 'status.phase': str('status', 'phase') },
  [key(R.secrets)]: { type: str('type') },
  [key(R.replicasets)]: { 'status.replicas': num('status', 'replicas') },
  [key(R.jobs)]: { 'status.successful': num('status', 'succeeded') },
  [key(R.services)]: { 'spec.clusterIP': str('spec', 'clusterIP'), 'spec.type': str('spec', 'type') },
  // The CSR controllers and `kubectl get csr --field-selector spec.signerName=…` select on the signer.
  [key(R.certificatesigningrequests)]: { 'spec.signerName': str('spec', 'signerName') },
};

function key(r: { plural: string; group: string }): string {
  return `${r.plural}.${r.group}`;
}

function gettersFor(resource: ResourceInfo): Record<string, Getter> {
  const base: Record<string, Getter> = { 'metadata.name': str('metadata', 'name') };
  if (resource.namespaced) base['metadata.namespace'] = str('metadata', 'namespace');
  return { ...base, ...(EXTRA_FIELDS[key(resource)] ?? {}) };
}

/** The field names a resource supports in field selectors. */
export function supportedFields(resource: ResourceInfo): string[] {
  return Object.keys(gettersFor(resource));
}

/** The field set of one object (what selectableFields returns). */
export function objectFields(resource: ResourceInfo, obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [f, get] of Object.entries(gettersFor(resource))) out[f] = get(obj);
  return out;
}

/** Splits on unescaped separators. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    if (c === '\\' && i + 1 < s.length) {
      cur += c + (s[i + 1] ?? '');
      i++;
    } else if (c === ',') {
      terms.push(cur);
      cur = '';
    } else cur += c;
  }
  terms.push(cur);
  return terms;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` are the escapes; an unescaped `,` or `=` in a value is an error. */
function unescape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    if (c === ',' || c === '=') throw errors.badRequest(`invalid field selector: unescaped character in value: ${c.charCodeAt(0)}`);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[i + 1];
    if (n === '\\' || n === ',' || n === '=') {
      out += n;
      i++;
    } else throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
  }
  return out;
}

/**
 * fields.ParseSelector, then (when a resource is given) the check that every field is supported.
 * Empty string selects everything. Throws 400 on bad syntax or an unsupported field.
 */
export function parseFieldSelector(s: string, resource?: ResourceInfo): FieldSelectorMatcher {
  const sel = parseFieldSyntax(s);
  if (resource) checkFieldSelector(resource, sel);
  return { ...sel, matches: (fields) => fieldsMatch(sel, fields) };
}

function parseFieldSyntax(s: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (s.trim() === '') return { requirements };
  for (const term of splitTerms(s)) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    const [field, op, rest] = split;
    requirements.push({ field, operator: op === '!=' ? '!=' : '=', value: unescape(rest) });
  }
  return { requirements };
}

/** fields.splitTerm: the first position where an operator starts (`!=`, then `==`, then `=`) splits the term. */
function splitTerm(term: string): [string, '!=' | '==' | '=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
  }
  return undefined;
}

/** Rejects fields the resource does not support, as a 400 "field label not supported: x". */
export function checkFieldSelector(resource: ResourceInfo, sel: FieldSelector): void {
  const supported = new Set(supportedFields(resource));
  for (const r of sel.requirements) {
    if (!supported.has(r.field)) throw errors.badRequest(`field label not supported: ${r.field}`);
  }
}

/** parse + check in one call, for the list/watch handlers. */
export function parseFieldSelectorFor(resource: ResourceInfo, s: string): FieldSelectorMatcher {
  return parseFieldSelector(s, resource);
}

export function fieldsMatch(sel: FieldSelector, fields: Record<string, string>): boolean {
  return sel.requirements.every((r) => {
    const v = fields[r.field] ?? '';
    return r.operator === '=' ? v === r.value : v !== r.value;
  });
}

/** If the selector pins a field to one value (e.g. spec.nodeName=x), that value; for index lookups. */
export function requiresExactMatch(sel: FieldSelector, field: string): string | undefined {
  return sel.requirements.find((r) => r.field === field && r.operator === '=')?.value;
}

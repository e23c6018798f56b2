// The labelSelector and fieldSelector query parameters as metrics-server's lists take them: label requirements
// (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`) matched with @kemu/api's semantics, and field
// requirements on metadata.name / metadata.namespace (`=`, `==`, `!=`). A selector that does not parse is a
// 400 BadRequest naming it; the apiserver's full grammar checks (key and value syntax) are not repeated here.
import { errors, selectorMatches, type LabelRequirement, type ParsedSelector } from '@kemu/api';

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x !== '');
}

const KEY = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;

function requirement(s: string): LabelRequirement | undefined {
  let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(s);
  if (m) return KEY.test(m[1] ?? '') ? { key: m[1] ?? '', operator: m[2] as 'in' | 'notin', values: (m[3] ?? '').split(',').map((v) => v.trim()).sort() } : undefined;
  m = /^([^=!\s]+)\s*(==|!=|=)\s*([^=!\s]*)$/.exec(s);
  if (m) return KEY.test(m[1] ?? '') ? { key: m[1] ?? '', operator: m[2] as '=' | '==' | '!=', values: [m[3] ?? ''] } : undefined;
  m = /^!\s*(\S+)$/.exec(s);
  if (m) return KEY.test(m[1] ?? '') ? { key: m[1] ?? '', operator: '!', values: [] } : undefined;
  return KEY.test(s) ? { key: s, operator: 'exists', values: [] } : undefined;
}

export type Matcher = (labels: Record<string, string> | undefined) => boolean;

export function parseLabelSelector(s: string | null): Matcher {
  if (!s) return () => true;
  const sel: ParsedSelector = { requirements: [] };
  for (const part of splitTop(s)) {
    const r = requirement(part);
    if (!r) throw errors.badRequest(`unable to parse requirement: found '${part}', expected: identifier`);
    sel.requirements.push(r);
  }
  return (labels) => selectorMatches(sel, labels);
}

/** Matches an object's metadata.name and metadata.namespace. */
export function parseFieldSelector(s: string | null): (meta: { name: string; namespace?: string }) => boolean {
  if (!s) return () => true;
  const reqs = splitTop(s).map((part) => {
    const m = /^([^=!\s]+)\s*(==|!=|=)\s*(\S*)$/.exec(part);
    if (!m) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const field = m[1] ?? '';
    if (field !== 'metadata.name' && field !== 'metadata.namespace') throw errors.badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    return { field, equal: m[2] !== '!=', value: m[3] ?? '' };
  });
  return (meta) => reqs.every((r) => ((r.field === 'metadata.name' ? meta.name : (meta.namespace ?? '')) === r.value) === r.equal);
}

// The shape of go-cmp's cmp.Diff(old, new) for one level of a Go struct, which Kubernetes appends to some
// "is immutable" messages: the type header, changed fields as -/+ lines, up to two unchanged fields of context
// around each change and "... // N identical fields" for the rest, values of a run aligned. Scalars render as
// Go literals; composite values are shown compactly on one line (cmp would descend into them).
import { jsonEqual } from './field.ts';

export type GoKind = 'string' | 'ptr' | 'slice' | 'struct';
export interface GoField {
  /** Go field name (AccessModes). */
  name: string;
  /** JSON key (accessModes). */
  json: string;
  kind: GoKind;
  /** Go type, shown on composite values (`[]core.PersistentVolumeAccessMode`). */
  type?: string;
}

const CONTEXT = 2;

function render(v: unknown, f: GoField, withType = true): string {
  if (v === undefined || v === null) return f.kind === 'string' ? '""' : f.kind === 'struct' ? `${f.type ?? ''}{}` : 'nil';
  if (f.kind === 'string') return JSON.stringify(String(v));
  if (f.kind === 'ptr' && typeof v !== 'object') return `&${JSON.stringify(v)}`;
  const prefix = f.kind === 'ptr' ? '&' : '';
  return `${prefix}${withType ? (f.type ?? '') : ''}${compact(v)}`;
}

/** Fields that are Go maps: their keys stay quoted strings rather than becoming field names. */
const MAP_FIELDS = new Set(['requests', 'limits', 'capacity', 'matchLabels', 'volumeAttributes', 'options', 'parameters']);

function compact(v: unknown, isMap = false): string {
  if (Array.isArray(v)) return `{${v.map((x) => compact(x)).join(', ')}}`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${isMap ? JSON.stringify(k) : `${k.charAt(0).toUpperCase()}${k.slice(1)}`}: ${compact(x, !isMap && MAP_FIELDS.has(k))}`)
      .join(', ')}}`;
  return v === undefined || v === null ? 'nil' : JSON.stringify(v);
}

interface Line {
  mark: ' ' | '-' | '+';
  key?: string;
  value: string;
}

/** cmp.Diff(old, new) for a struct of these fields; '' when equal. */
export function structDiff(typeName: string, fields: readonly GoField[], oldObj: Record<string, unknown>, newObj: Record<string, unknown>): string {
  const same = fields.map((f) => jsonEqual(oldObj[f.json] ?? null, newObj[f.json] ?? null));
  if (same.every(Boolean)) return '';
  const lines: Line[] = [];
  const ellipsis = (n: number) => lines.push({ mark: ' ', value: `... // ${n} identical field${n > 1 ? 's' : ''}` });
  // Unchanged values leave out the type the field already implies, as cmp does.
  const equal = (f: GoField) => lines.push({ mark: ' ', key: f.name, value: render(newObj[f.json], f, false) });
  let i = 0;
  while (i < fields.length) {
    let j = i;
    while (j < fields.length && same[j] === same[i]) j++;
    const run = fields.slice(i, j);
    if (!same[i]) {
      for (const f of run) {
        lines.push({ mark: '-', key: f.name, value: render(oldObj[f.json], f) });
        lines.push({ mark: '+', key: f.name, value: render(newObj[f.json], f) });
      }
    } else {
      // go-cmp shows up to two equal records beside a change, and never elides just one.
      let lo = i === 0 ? 0 : Math.min(CONTEXT, run.length);
      let hi = j === fields.length ? 0 : Math.min(CONTEXT, run.length - lo);
      if (run.length - (lo + hi) === 1) hi++;
      lo = Math.min(lo, run.length);
      run.slice(0, lo).forEach(equal);
      if (run.length > lo + hi) ellipsis(run.length - lo - hi);
      run.slice(run.length - hi).forEach((f) => hi > 0 && equal(f));
    }
    i = j;
  }
  // Align values across each run of keyed lines (an ellipsis breaks the run).
  const out: string[] = [`  ${typeName}{`];
  for (let a = 0; a < lines.length; ) {
    let b = a;
    while (b < lines.length && lines[b]?.key !== undefined) b++;
    const width = Math.max(0, ...lines.slice(a, b).map((l) => l.key?.length ?? 0));
    for (const l of lines.slice(a, b)) out.push(`${l.mark} \t${l.key ?? ''}:${' '.repeat(width - (l.key?.length ?? 0) + 1)}${l.value},`);
    if (b < lines.length) out.push(`${lines[b]?.mark ?? ' '} \t${lines[b]?.value ?? ''}`);
    a = b + 1;
  }
  out.push('  }');
  return out.join('\n');
}

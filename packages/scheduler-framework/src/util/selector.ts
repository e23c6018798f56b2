// Label selectors compiled once per scheduling cycle into closures, so matching thousands of pods or nodes
// allocates nothing. Semantics as metav1.LabelSelectorAsSelector (nil matches nothing, {} matches all) and
// v1.NodeSelectorRequirement (Gt/Lt compare integers).
// Kept apart from @kemu/api's selector.ts on purpose: that one interprets a parsed selector on every match
// (switch + includes per requirement) and throws on invalid input; the scheduler's hot path needs closures
// compiled once, an indexKey for label indexes, and NodeSelectorTerm's matchFields.
import type { LabelSelector, NodeSelectorTerm } from '@kemu/api';

export type Labels = Record<string, string> | undefined;
export type LabelMatcher = ((labels: Labels) => boolean) & {
  /** One equality requirement (key, value) every match must satisfy: lets callers use a label index. */
  indexKey?: readonly [string, string];
};

export const matchNothing: LabelMatcher = () => false;
export const matchEverything: LabelMatcher = () => true;

const hasOwn = (o: Record<string, string>, k: string) => Object.prototype.hasOwnProperty.call(o, k);

interface Req {
  key: string;
  op: string;
  values: readonly string[];
}

function reqMatcher(r: Req): LabelMatcher | undefined {
  const { key, values } = r;
  switch (r.op) {
    case 'In':
      if (values.length === 0) return undefined;
      if (values.length === 1) {
        const v0 = values[0];
        return (l) => l !== undefined && hasOwn(l, key) && l[key] === v0;
      }
      return (l) => l !== undefined && hasOwn(l, key) && values.includes(l[key] as string);
    case 'NotIn':
      if (values.length === 0) return undefined;
      return (l) => l === undefined || !hasOwn(l, key) || !values.includes(l[key] as string);
    case 'Exists':
      if (values.length > 0) return undefined;
      return (l) => l !== undefined && hasOwn(l, key);
    case 'DoesNotExist':
      if (values.length > 0) return undefined;
      return (l) => l === undefined || !hasOwn(l, key);
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1 || !/^-?\d+$/.test(values[0] ?? '')) return undefined;
      const bound = Number(values[0]);
      const gt = r.op === 'Gt';
      return (l) => {
        if (l === undefined || !hasOwn(l, key)) return false;
        const s = l[key] as string;
        if (!/^-?\d+$/.test(s)) return false;
        const n = Number(s);
        return gt ? n > bound : n < bound;
      };
    }
    default:
      return undefined;
  }
}

function and(ms: LabelMatcher[]): LabelMatcher {
  if (ms.length === 0) return matchEverything;
  if (ms.length === 1) return ms[0] as LabelMatcher;
  return (l) => {
    for (let i = 0; i < ms.length; i++) if (!(ms[i] as LabelMatcher)(l)) return false;
    return true;
  };
}

/** metav1.LabelSelector → matcher; undefined/null matches nothing, invalid selectors match nothing. */
export function compileLabelSelector(ls: LabelSelector | null | undefined): LabelMatcher {
  if (ls === null || ls === undefined) return matchNothing;
  const ms: LabelMatcher[] = [];
  let indexKey: [string, string] | undefined;
  for (const [key, value] of Object.entries(ls.matchLabels ?? {})) {
    indexKey ??= [key, value];
    ms.push((l) => l !== undefined && hasOwn(l, key) && l[key] === value);
  }
  for (const e of ls.matchExpressions ?? []) {
    const m = reqMatcher({ key: e.key, op: e.operator, values: e.values ?? [] });
    if (!m) return matchNothing;
    if (e.operator === 'In' && e.values?.length === 1) indexKey ??= [e.key, e.values[0] as string];
    ms.push(m);
  }
  // A fresh function so the shared matchEverything never carries an index key.
  const inner = and(ms);
  const out: LabelMatcher = (l) => inner(l);
  if (indexKey) out.indexKey = indexKey;
  return out;
}

/** A plain label map as a selector (Service.spec.selector); an empty map matches everything. */
export function compileSet(set: Record<string, string>): LabelMatcher {
  return compileLabelSelector({ matchLabels: set });
}

/** Is the selector empty (matches everything)? */
export function isEmptySelector(ls: LabelSelector | null | undefined): boolean {
  return !!ls && Object.keys(ls.matchLabels ?? {}).length === 0 && (ls.matchExpressions ?? []).length === 0;
}

export interface NodeLike {
  name: string;
  labels: Labels;
}
export type NodeMatcher = (node: NodeLike) => boolean;

function compileTerm(term: NodeSelectorTerm): NodeMatcher {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // An empty term selects no objects (v1 NodeSelectorTerm semantics).
  if (exprs.length === 0 && fields.length === 0) return () => false;
  const labelMs: LabelMatcher[] = [];
  for (const e of exprs) {
    const m = reqMatcher({ key: e.key, op: e.operator, values: e.values ?? [] });
    if (!m) return () => false;
    labelMs.push(m);
  }
  const fieldMs: LabelMatcher[] = [];
  for (const f of fields) {
    // Only metadata.name is a supported node field, with In/NotIn of exactly one value.
    if (f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn') || (f.values ?? []).length !== 1)
      return () => false;
    const m = reqMatcher({ key: 'metadata.name', op: f.operator, values: f.values ?? [] });
    if (!m) return () => false;
    fieldMs.push(m);
  }
  const lm = and(labelMs);
  const fm = fieldMs.length ? and(fieldMs) : undefined;
  return (n) => lm(n.labels) && (fm === undefined || fm({ 'metadata.name': n.name }));
}

/** v1.NodeSelector: terms are ORed, requirements in a term ANDed. */
export function compileNodeSelectorTerms(terms: readonly NodeSelectorTerm[]): NodeMatcher {
  const ms = terms.map(compileTerm);
  return (n) => {
    for (let i = 0; i < ms.length; i++) if ((ms[i] as NodeMatcher)(n)) return true;
    return false;
  };
}

export function compileNodeSelectorTerm(term: NodeSelectorTerm): NodeMatcher {
  return compileTerm(term);
}

// metav1.LabelSelector semantics shared by controllers, the scheduler and the apiserver: matching labels,
// and the canonical string form ("app=web,tier in (a,b),!legacy") that label-selector query strings use.
import type { LabelSelector } from './meta.ts';

export type RequirementOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One parsed requirement (labels.Requirement). Values are sorted, as Kubernetes keeps them. */
export interface LabelRequirement {
  key: string;
  operator: RequirementOperator;
  values: string[];
}

/** A selector is the AND of its requirements; `nothing` matches no object (a nil LabelSelector). */
export interface ParsedSelector {
  requirements: LabelRequirement[];
  nothing?: boolean;
}

export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(value ?? '');
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value ?? '')) return false;
      const v = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === 'gt' ? v > bound : v < bound;
    }
  }
}

export function selectorMatches(sel: ParsedSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.nothing) return false;
  return sel.requirements.every((r) => requirementMatches(r, labels));
}

export function requirementToString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'lt':
      return `${r.key}<${r.values[0] ?? ''}`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

/** labels.Selector.String(): requirements sorted by key, comma-joined. */
export function selectorToString(sel: ParsedSelector): string {
  return [...sel.requirements]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(requirementToString)
    .join(',');
}

export class LabelSelectorError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

const OPERATORS: Record<string, RequirementOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: undefined/null → matches nothing, {} → matches everything.
 * Throws LabelSelectorError for an unknown operator or values that do not fit it.
 */
export function labelSelectorAsSelector(ls: LabelSelector | null | undefined): ParsedSelector {
  if (ls === null || ls === undefined) return { requirements: [], nothing: true };
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(ls.matchLabels ?? {})) {
    requirements.push({ key, operator: '=', values: [value] });
  }
  (ls.matchExpressions ?? []).forEach((e, i) => {
    const op = OPERATORS[e.operator];
    const field = `matchExpressions[${i}]`;
    if (op === undefined) throw new LabelSelectorError(`"${String(e.operator)}" is not a valid label selector operator`, `${field}.operator`);
    const values = [...(e.values ?? [])].sort();
    if ((op === 'in' || op === 'notin') && values.length === 0)
      throw new LabelSelectorError('for \'in\', \'notin\' operators, values set can\'t be empty', `${field}.values`);
    if ((op === 'exists' || op === '!') && values.length > 0)
      throw new LabelSelectorError('values set must be empty for exists and does not exist', `${field}.values`);
    requirements.push({ key: e.key, operator: op, values });
  });
  return { requirements };
}

/** Does a metav1.LabelSelector match these labels? (Invalid selectors match nothing.) */
export function matchesLabelSelector(ls: LabelSelector | null | undefined, labels: Record<string, string> | undefined): boolean {
  try {
    return selectorMatches(labelSelectorAsSelector(ls), labels);
  } catch {
    return false;
  }
}

/** The query-string form of a metav1.LabelSelector ("" for the empty selector). */
export function labelSelectorToString(ls: LabelSelector | null | undefined): string {
  return selectorToString(labelSelectorAsSelector(ls));
}

/** metav1.FormatLabelSelector, as kubectl prints it: "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(ls: LabelSelector | null | undefined): string {
  try {
    const s = selectorToString(labelSelectorAsSelector(ls));
    return s === '' ? '<none>' : s;
  } catch {
    return '<error>';
  }
}

/** A selector from a plain label map (Service.spec.selector, ReplicationController), sorted keys. */
export function selectorFromSet(set: Record<string, string> | undefined): ParsedSelector {
  return { requirements: Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })) };
}

// The field and label selectors a (Self|Local)SubjectAccessReview may carry (AuthorizeWithSelectors): their
// checks (validateField/LabelSelectorAttributes, with unknown operators allowed for newer clients) and the
// notes Kubernetes adds to status.evaluationError when a selector cannot be read (BuildEvaluationError).
import type { StatusCause } from '@kemu/api';
import { parseFieldSelector } from '../selectors/fields.ts';
import { parseLabelSelector } from '@kemu/api';
import { child, fieldErrors, index } from '../validation/field.ts';
import { isQualifiedName, isValidLabelValue } from '@kemu/api';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const requirementsOf = (sel: Obj): Obj[] => (Array.isArray(sel.requirements) ? sel.requirements.map((r) => (isObject(r) ? r : {})) : []);

/** metav1validation.ValidateFieldSelectorRequirement: a key; values with In/NotIn, none with Exists/DoesNotExist. */
function fieldRequirementCauses(r: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const values = strings(r.values);
  if (str(r.key) === '') out.push(fieldErrors.required(child(path, 'key'), 'must be specified'));
  const op = str(r.operator);
  if ((op === 'In' || op === 'NotIn') && values.length === 0) out.push(fieldErrors.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) out.push(fieldErrors.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  return out;
}

/** metav1validation.ValidateLabelSelectorRequirement: as above, plus a qualified-name key and label values. */
function labelRequirementCauses(r: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const values = strings(r.values);
  const op = str(r.operator);
  if ((op === 'In' || op === 'NotIn') && values.length === 0) out.push(fieldErrors.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) out.push(fieldErrors.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  for (const msg of isQualifiedName(str(r.key))) out.push(fieldErrors.invalid(child(path, 'key'), str(r.key), msg));
  values.forEach((v, i) => {
    for (const msg of isValidLabelValue(v)) out.push(fieldErrors.invalid(index(child(path, 'values'), i), v, msg));
  });
  return out;
}

function selectorCauses(sel: unknown, path: string, requirementCauses: (r: Obj, path: string) => StatusCause[]): StatusCause[] {
  if (!isObject(sel)) return [];
  const out: StatusCause[] = [];
  const raw = str(sel.rawSelector);
  const reqs = requirementsOf(sel);
  if (raw !== '' && reqs.length > 0) out.push(fieldErrors.invalid(child(path, 'rawSelector'), raw, 'may not specified at the same time as requirements'));
  if (raw === '' && reqs.length === 0) out.push(fieldErrors.required(child(path, 'requirements'), `when ${path} is specified, requirements or rawSelector is required`));
  reqs.forEach((r, i) => out.push(...requirementCauses(r, index(child(path, 'requirements'), i))));
  return out;
}

/** validateResourceAttributes: the checks of both selectors. */
export function resourceSelectorCauses(res: Obj): StatusCause[] {
  return [
    ...selectorCauses(res.fieldSelector, 'spec.resourceAttributes.fieldSelector', fieldRequirementCauses),
    ...selectorCauses(res.labelSelector, 'spec.resourceAttributes.labelSelector', labelRequirementCauses),
  ];
}

interface SelectorUse {
  usable: number;
  failed: boolean;
}

/**
 * How many requirements authorization could use and whether any could not: the raw selector parsed whole, or
 * each requirement judged by itself.
 */
function selectorUse(sel: Obj, parseRaw: (raw: string) => { requirements: unknown[] }, usable: (r: Obj) => boolean): SelectorUse {
  const raw = str(sel.rawSelector);
  if (raw !== '') {
    try {
      return { usable: parseRaw(raw).requirements.length, failed: false };
    } catch {
      return { usable: 0, failed: true };
    }
  }
  const reqs = requirementsOf(sel);
  const n = reqs.filter(usable).length;
  return { usable: n, failed: n < reqs.length };
}

/** fieldSelectorAsSelector: In or NotIn with exactly one value. */
function usableFieldRequirement(r: Obj): boolean {
  const op = str(r.operator);
  return strings(r.values).length === 1 && (op === 'In' || op === 'NotIn');
}

/** labelSelectorAsSelector: a known operator and a requirement labels.NewRequirement accepts. */
function usableLabelRequirement(r: Obj): boolean {
  const op = str(r.operator);
  const values = strings(r.values);
  const shape = ((op === 'In' || op === 'NotIn') && values.length > 0) || ((op === 'Exists' || op === 'DoesNotExist') && values.length === 0);
  return shape && isQualifiedName(str(r.key)).length === 0 && values.every((v) => isValidLabelValue(v).length === 0);
}

/** BuildEvaluationError's selector notes, field selector first. */
export function selectorEvaluationNotes(res: Obj): string[] {
  const notes: string[] = [];
  const uses: Array<[string, unknown, (s: Obj) => SelectorUse]> = [
    ['fieldSelector', res.fieldSelector, (s) => selectorUse(s, parseFieldSelector, usableFieldRequirement)],
    ['labelSelector', res.labelSelector, (s) => selectorUse(s, parseLabelSelector, usableLabelRequirement)],
  ];
  for (const [name, sel, use] of uses) {
    if (!isObject(sel)) continue;
    const u = use(sel);
    if (u.failed) notes.push(`spec.resourceAttributes.${name} ${u.usable > 0 ? 'partially ignored' : 'ignored'} due to parse error`);
  }
  return notes;
}

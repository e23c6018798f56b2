// Resource lists and container resource requirements: every quantity parses, is non-negative, and requests ≤ limits.
import { QUANTITY_FORMAT_MESSAGE, tryParseQuantity } from '@kemu/api';
import type { StatusCause } from '@kemu/api';
import { child, fieldErrors, isRecord, key } from './field.ts';
import { isQualifiedName } from '@kemu/api';

export function validateResourceList(list: unknown, path: string, out: StatusCause[]): Map<string, number> {
  const values = new Map<string, number>();
  if (list === undefined || list === null) return values;
  if (!isRecord(list)) {
    out.push(fieldErrors.invalid(path, list, 'must be a map of resource names to quantities'));
    return values;
  }
  for (const [name, q] of Object.entries(list)) {
    const p = key(path, name);
    for (const m of isQualifiedName(name)) out.push(fieldErrors.invalid(p, name, m));
    const v = tryParseQuantity(q);
    if (v === undefined) {
      out.push(fieldErrors.invalid(p, q, QUANTITY_FORMAT_MESSAGE));
      continue;
    }
    if (v < 0) out.push(fieldErrors.invalid(p, q, 'must be greater than or equal to 0'));
    values.set(name, v);
  }
  return values;
}

export function validateResourceRequirements(res: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (res === undefined || res === null) return out;
  if (!isRecord(res)) return [fieldErrors.invalid(path, res, 'must be an object')];
  const limits = validateResourceList(res.limits, child(path, 'limits'), out);
  const requests = validateResourceList(res.requests, child(path, 'requests'), out);
  const rawLimits = isRecord(res.limits) ? res.limits : {};
  const rawRequests = isRecord(res.requests) ? res.requests : {};
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (lim !== undefined && req > lim)
      out.push(
        fieldErrors.invalid(
          key(child(path, 'requests'), name),
          rawRequests[name],
          `must be less than or equal to ${name} limit of ${String(rawLimits[name])}`,
        ),
      );
  }
  return out;
}

// The JSONPath subset printer columns use (kubectl's and Kubernetes' column paths): .field, ['field'], [n],
// [*] and [?(@.field=="value")] filters. Results are the values found, in order.
type Step = { field: string } | { index: number } | { all: true } | { filter: { path: string[]; value: string } };

function parse(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = path.startsWith('{') && path.endsWith('}') ? 1 : 0;
  const end = i === 1 ? path.length - 1 : path.length;
  while (i < end) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < end && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) return undefined;
      steps.push({ field: path.slice(i + 1, j) });
      i = j;
    } else if (c === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) return undefined;
      const inner = path.slice(i + 1, close);
      const filter = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*["']([^"']*)["']\)$/.exec(inner);
      if (inner === '*') steps.push({ all: true });
      else if (/^\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else if (filter) steps.push({ filter: { path: filter[1]!.slice(1).split('.'), value: filter[2]! } });
      else return undefined;
      i = close + 1;
    } else return undefined;
  }
  return steps;
}

const get = (v: unknown, k: string): unknown => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined);

/** The values at path in obj; undefined when the path is not one this subset reads. */
export function evaluate(path: string, obj: unknown): unknown[] | undefined {
  const steps = parse(path);
  if (!steps) return undefined;
  let cur: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('field' in s) {
        const x = get(v, s.field);
        if (x !== undefined) next.push(x);
      } else if ('index' in s) {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if ('all' in s) {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object' && v !== null) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          const at = s.filter.path.reduce<unknown>((o, k) => get(o, k), item);
          if (at !== undefined && String(at) === s.filter.value) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}

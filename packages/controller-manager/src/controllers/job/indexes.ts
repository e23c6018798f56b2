// Completion-index sets as a Job's status writes them ("1,3-5,7"): parsed, merged and printed in order.
export type IndexSet = Set<number>;

/** Parses "1,3-5" into {1,3,4,5}; indexes at or above `completions` are dropped, as the job controller does. */
export function parseIndexes(s: string | undefined, completions: number): IndexSet {
  const out: IndexSet = new Set();
  if (!s) return out;
  for (const part of s.split(',')) {
    const [a, b] = part.split('-');
    const from = Number(a);
    const to = b === undefined ? from : Number(b);
    if (!Number.isInteger(from) || !Number.isInteger(to)) continue;
    for (let i = from; i <= to && i < completions; i++) out.add(i);
  }
  return out;
}

/** {1,3,4,5} → "1,3-5". */
export function formatIndexes(set: IndexSet): string {
  const sorted = [...set].sort((x, y) => x - y);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

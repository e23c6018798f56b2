// Go's %#v rendering of the few composite values Kubernetes puts in "Invalid value: ..." messages, wrapped so
// field.ts prints them verbatim instead of JSON-quoting them.

/** A pre-rendered bad value (printed as-is by formatValue). */
export class GoValue {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

export function goMap(m: Record<string, unknown>): GoValue {
  const keys = Object.keys(m).sort();
  return new GoValue(`map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(m[k]))}`).join(', ')}}`);
}

export function goLabelSelector(sel: Record<string, unknown>): GoValue {
  const ml = typeof sel.matchLabels === 'object' && sel.matchLabels !== null ? goMap(sel.matchLabels as Record<string, unknown>).text : 'map[string]string(nil)';
  const me = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
        .map((e: unknown) => {
          const r = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
          const vals = Array.isArray(r.values) ? `[]string{${r.values.map((v) => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)';
          return `v1.LabelSelectorRequirement{Key:${JSON.stringify(String(r.key ?? ''))}, Operator:${JSON.stringify(String(r.operator ?? ''))}, Values:${vals}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoValue(`v1.LabelSelector{MatchLabels:${ml}, MatchExpressions:${me}}`);
}

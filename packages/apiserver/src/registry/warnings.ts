// Warning headers as Kubernetes sends them: `299 - "text"` per warning, deduplicated, joined with ", "
// (one header value that client-go splits back into warnings; kubectl prints each as `Warning: text`).

// A header value may hold only printable ASCII: everything else is escaped inside the quoted text.
const quoted = (t: string): string => JSON.stringify(t).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function warningHeader(texts: readonly string[]): string | undefined {
  const unique = [...new Set(texts)];
  return unique.length === 0 ? undefined : unique.map((t) => `299 - ${quoted(t)}`).join(', ');
}

/** The Warning headers of a reply, when there is any. */
export function warningHeaders(texts: readonly string[]): { headers: { warning: string } } | Record<string, never> {
  const w = warningHeader(texts);
  return w ? { headers: { warning: w } } : {};
}

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

// Warnings gathered before a request failed: Kubernetes sends them with the error (kubectl prints both).
const onErrors = new WeakMap<object, string[]>();

/** Runs fn; when it throws, the warnings gathered so far go with the error. */
export async function keepingWarnings<T>(warnings: string[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (typeof e === 'object' && e !== null && warnings.length > 0) onErrors.set(e, [...warnings]);
    throw e;
  }
}

/** The Warning header value for a failed request, if warnings went with its error. */
export function warningHeaderOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? warningHeader(onErrors.get(err) ?? []) : undefined;
}

// Kubernetes timestamp formats: metav1.Time is RFC 3339 to the second, MicroTime to the microsecond.

/** metav1.Time: "2026-12-02T13:02:20Z". */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** metav1.MicroTime: "2026-12-02T13:02:20.412000Z" (JS clocks give milliseconds). */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Parses any RFC 3339 time (fractional or not); NaN when invalid. */
export function parseTime(s: string | null | undefined): number {
  if (!s) return NaN;
  return Date.parse(s);
}

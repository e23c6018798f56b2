// Several authenticators' failures reported as one, worded as Go's utilerrors.NewAggregate: one error is its own
// message, several are "[a, b]".
import { AuthenticationError } from './types.ts';

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function aggregate(errs: readonly unknown[]): AuthenticationError | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return errs[0] instanceof AuthenticationError ? errs[0] : new AuthenticationError(errorMessage(errs[0]));
  return new AuthenticationError(`[${errs.map(errorMessage).join(', ')}]`);
}

/** Go's %q of a []string: ["a" "b"]. */
export function quotedList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

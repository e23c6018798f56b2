// --controllers selection as Kubernetes does it: "*" enables every controller that is on by default, "foo"
// enables foo, "-foo" disables it, the first explicit mention wins, and a name that is not known (canonical
// or alias) is an error.
import type { ControllerDescriptor } from './controller.ts';

export class ControllerSelectionError extends Error {}

function names(d: ControllerDescriptor): string[] {
  return [d.name, ...(d.aliases ?? [])];
}

/** Validates the --controllers values against the known names (canonical or alias). */
export function validateControllerFlag(flag: readonly string[], all: readonly ControllerDescriptor[]): string[] {
  const known = new Set(all.flatMap(names));
  const errs: string[] = [];
  for (const entry of flag) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!known.has(name)) errs.push(`"${name}" is not in the list of known controllers`);
  }
  return errs;
}

export function isControllerEnabled(d: ControllerDescriptor, flag: readonly string[]): boolean {
  const mine = new Set(names(d));
  let star = false;
  for (const entry of flag) {
    if (mine.has(entry)) return true;
    if (entry.startsWith('-') && mine.has(entry.slice(1))) return false;
    if (entry === '*') star = true;
  }
  return star && d.enabledByDefault;
}

/** The descriptors --controllers selects, in registry order; throws ControllerSelectionError for unknown names. */
export function selectControllers(flag: readonly string[], all: readonly ControllerDescriptor[]): ControllerDescriptor[] {
  const errs = validateControllerFlag(flag, all);
  if (errs.length > 0) throw new ControllerSelectionError(errs.join(', '));
  const seen = new Set<string>();
  for (const d of all) {
    for (const n of names(d)) {
      if (seen.has(n)) throw new Error(`controller name ${n} registered twice`);
      seen.add(n);
    }
  }
  return all.filter((d) => isControllerEnabled(d, flag));
}

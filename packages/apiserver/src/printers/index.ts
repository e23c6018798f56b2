// Table printers per resource, as `kubectl get` prints them (pkg/printers/internalversion/printers.go).
import type { ResourceInfo } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';

const PRINTERS = new Map<string, TablePrinter>();

export function registerPrinter(r: { group: string; plural: string }, p: TablePrinter): void {
  PRINTERS.set(`${r.plural}.${r.group}`, p);
}

export function printerFor(r: ResourceInfo): TablePrinter | undefined {
  return PRINTERS.get(`${r.plural}.${r.group}`);
}

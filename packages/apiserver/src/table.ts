// Server-side printing: meta.k8s.io/v1 Tables for `kubectl get` (lists, single objects, watch events),
// with rows carrying PartialObjectMetadata (or the object, or nothing, per includeObject).
import { errors, formatTime, type KubeObject, type ListMeta } from '@kemu/api';
import type { TableColumn, TablePrinter } from './strategy/types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export const DEFAULT_PRINTER: TablePrinter = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.' },
    { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' },
  ],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? formatTime(0)],
};

/** True when the Accept header asks for a meta.k8s.io Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const p = part.replace(/\s+/g, '');
    return p.includes('as=Table') && p.includes('g=meta.k8s.io');
  });
}

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '' || v === 'Metadata') return 'Metadata';
  if (v === 'None' || v === 'Object') return v;
  throw errors.badRequest(`includeObject: unsupported value "${v}": supported values: "None", "Metadata", "Object"`);
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export function rowFor(obj: KubeObject, printer: TablePrinter, include: IncludeObject, now: number): TableRow {
  let cells: unknown[];
  try {
    cells = printer.cells(obj, now);
  } catch {
    cells = printer.columns.map(() => '');
  }
  const row: TableRow = { cells };
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: partialMeta(obj) };
  return row;
}

function partialMeta(obj: KubeObject): KubeObject['metadata'] {
  const { managedFields: _mf, ...meta } = obj.metadata;
  return meta;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

export function toTable(objects: KubeObject[], printer: TablePrinter, include: IncludeObject, now: number, metadata: ListMeta, withColumns = true): Table {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: withColumns ? printer.columns : [],
    rows: objects.map((o) => rowFor(o, printer, include, now)),
  };
}

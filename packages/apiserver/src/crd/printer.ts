// The Table of a custom resource (apiextensions-apiserver's tableconvertor): Name, then the version's
// additionalPrinterColumns read by JSONPath — or an Age column when it has none. A date column prints the
// time since the value, integers and numbers as numbers, everything else as text; a path with no value
// gives an empty cell (kubectl prints <none>).
import type { ResourceInfo } from '@kemu/api';
import type { TableCell, TableColumn, TablePrinter } from '../strategy/types.ts';
import { since } from '../printers/duration.ts';
import { nameCol } from '../printers/util.ts';
import { asArray, asString, isRecord } from '../validation/field.ts';
import { evaluate } from './jsonpath.ts';
import { versionOf } from './definitions.ts';

interface Column {
  def: TableColumn;
  path: string;
}

const AGE: Column = {
  def: { name: 'Age', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' },
  path: '.metadata.creationTimestamp',
};

const COLUMN_TYPES = new Set<TableColumn['type']>(['string', 'integer', 'number', 'boolean', 'date']);

function columnsOf(r: ResourceInfo): Column[] {
  const cols = (asArray(versionOf(r)?.additionalPrinterColumns) ?? []).filter(isRecord);
  if (cols.length === 0) return [AGE];
  return cols.map((c): Column => {
    const type = COLUMN_TYPES.has(c.type as TableColumn['type']) ? (c.type as TableColumn['type']) : 'string';
    const def: TableColumn = { name: asString(c.name) ?? '', type };
    const format = asString(c.format);
    if (format) def.format = format;
    const description = asString(c.description);
    if (description) def.description = description;
    if (typeof c.priority === 'number' && c.priority !== 0) def.priority = c.priority;
    return { def, path: asString(c.jsonPath) ?? '' };
  });
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function cell(col: Column, obj: unknown, now: number): TableCell {
  const values = evaluate(col.path, obj);
  if (!values || values.length === 0) return null;
  const first = values[0];
  switch (col.def.type) {
    case 'date':
      return since(first, now);
    case 'integer':
      return typeof first === 'number' && Number.isInteger(first) ? first : null;
    case 'number':
      return typeof first === 'number' ? first : null;
    case 'boolean':
      return typeof first === 'boolean' ? first : null;
    default:
      return values.map(text).join(' ');
  }
}

export function customResourcePrinter(r: ResourceInfo): TablePrinter {
  const cols = columnsOf(r);
  return {
    columns: [nameCol, ...cols.map((c) => c.def)],
    cells: (obj, now) => [obj.metadata.name ?? '', ...cols.map((c) => cell(c, obj, now))],
  };
}

// Narrowing helpers and column shorthands for the printers.
import { formatLabelSelector, type KubeObject, type LabelSelector } from '@kemu/api';
import type { TableCell, TableColumn } from '../strategy/types.ts';
import { since } from './duration.ts';

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}
export function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj) : [];
}
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export const nameCol: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
};
export const ageCol: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
};
export function col(name: string, type: TableColumn['type'] = 'string', priority = 0): TableColumn {
  return priority > 0 ? { name, type, priority } : { name, type };
}

/** "a + N more..." lists as the printers shorten them; "" → the given empty marker. */
export function listWithMore(items: string[], max: number, empty: string): string {
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === '' ? empty : shown;
}

/** labels.FormatLabels: "k=v,..." sorted by key, "<none>" when empty. */
export function formatLabels(m: unknown): string {
  const entries = Object.entries(obj(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${str(v)}`).join(',');
}

/** The wide Containers and Images columns of a pod spec. */
export function containerColumns(podSpec: unknown): [string, string] {
  const containers = list(obj(podSpec).containers);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

/** A spec's LabelSelector as kubectl prints it ("<none>" when unset or empty). */
export function selectorColumn(spec: Obj): string {
  return formatLabelSelector(spec.selector === undefined ? undefined : (obj(spec.selector) as LabelSelector));
}

/** Containers, Images and Selector: the wide columns of a workload with a pod template and a LabelSelector. */
export function templateColumns(spec: Obj): string[] {
  return [...containerColumns(obj(spec.template).spec), selectorColumn(spec)];
}

/** The columns kubectl prints for a ReplicaSet or ReplicationController (the wide ones last). */
export const REPLICA_COLUMNS: TableColumn[] = [
  nameCol,
  col('Desired', 'integer'),
  col('Current', 'integer'),
  col('Ready', 'integer'),
  ageCol,
  col('Containers', 'string', 1),
  col('Images', 'string', 1),
  col('Selector', 'string', 1),
];

/** Name, Desired, Current, Ready and Age of a replica controller; the caller adds the wide columns. */
export function replicaCells(o: KubeObject, now: number): TableCell[] {
  const spec = obj(o.spec);
  const st = obj(o.status);
  return [o.metadata.name ?? '', int(spec.replicas), int(st.replicas), int(st.readyReplicas), since(o.metadata.creationTimestamp, now)];
}

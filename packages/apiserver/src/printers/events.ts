// kubectl get events: Last Seen, Type, Reason, Object, Message | Subobject, Source, First Seen, Count, Name.
// events.k8s.io/v1 objects are printed through the same columns, mapping their field names.
import type { KubeObject } from '@kemu/api';
import type { TablePrinter, TableColumn } from '../strategy/types.ts';
import { since } from './duration.ts';
import { col, int, obj, str } from './util.ts';

const columns: TableColumn[] = [
  col('Last Seen'),
  col('Type'),
  col('Reason'),
  col('Object'),
  col('Subobject', 'string', 1),
  col('Source', 'string', 1),
  col('Message'),
  col('First Seen', 'string', 1),
  col('Count', 'string', 1),
  { name: 'Name', type: 'string', format: 'name', priority: 1 },
];

interface EventView {
  name: string;
  type: string;
  reason: string;
  message: string;
  involved: Record<string, unknown>;
  component: string;
  host: string;
  first: unknown;
  last: unknown;
  eventTime: unknown;
  count: number;
  series: Record<string, unknown> | undefined;
}

function eventCells(e: EventView, now: number): (string | number)[] {
  const firstTs = e.first ? since(e.first, now) : since(e.eventTime, now);
  let lastTs = e.last ? since(e.last, now) : firstTs;
  let count = e.count;
  if (e.series) {
    lastTs = since(e.series.lastObservedTime, now);
    count = int(e.series.count);
  } else if (count === 0) count = 1;
  const kind = str(e.involved.kind).toLowerCase();
  const target = str(e.involved.name) !== '' ? `${kind}/${str(e.involved.name)}` : kind;
  const source = e.component === '' ? '' : e.host === '' ? e.component : `${e.component}, ${e.host}`;
  return [lastTs, e.type, e.reason, target, str(e.involved.fieldPath), source, e.message.trim(), firstTs, count, e.name];
}

export const eventPrinter: TablePrinter = {
  columns,
  cells(ev: KubeObject, now) {
    const src = obj(ev.source);
    return eventCells(
      {
        name: ev.metadata.name ?? '',
        type: str(ev.type),
        reason: str(ev.reason),
        message: str(ev.message),
        involved: obj(ev.involvedObject),
        component: str(src.component) || str(ev.reportingComponent),
        host: str(src.host) || str(ev.reportingInstance),
        first: ev.firstTimestamp,
        last: ev.lastTimestamp,
        eventTime: ev.eventTime,
        count: int(ev.count),
        series: ev.series === undefined || ev.series === null ? undefined : obj(ev.series),
      },
      now,
    );
  },
};

export const eventsV1Printer: TablePrinter = {
  columns,
  cells(ev: KubeObject, now) {
    const src = obj(ev.deprecatedSource);
    return eventCells(
      {
        name: ev.metadata.name ?? '',
        type: str(ev.type),
        reason: str(ev.reason),
        message: str(ev.note),
        involved: obj(ev.regarding),
        component: str(src.component) || str(ev.reportingController),
        host: str(src.host) || str(ev.reportingInstance),
        first: ev.deprecatedFirstTimestamp,
        last: ev.deprecatedLastTimestamp,
        eventTime: ev.eventTime,
        count: int(ev.deprecatedCount),
        series: ev.series === undefined || ev.series === null ? undefined : obj(ev.series),
      },
      now,
    );
  },
};

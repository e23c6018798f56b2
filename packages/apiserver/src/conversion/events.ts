// core/v1 Event ⇄ events.k8s.io/v1 Event (kubernetes pkg/apis/events/v1/conversion.go): one stored object,
// two shapes. involvedObject ⇄ regarding, message ⇄ note, source ⇄ deprecatedSource, firstTimestamp /
// lastTimestamp / count ⇄ deprecatedFirstTimestamp / deprecatedLastTimestamp / deprecatedCount,
// reportingComponent ⇄ reportingController; eventTime, series, action, reason, related, type,
// reportingInstance are the same. Empty values print as the Go types do: a struct ({} for regarding,
// source), null for an unset time, an int32 0 left out.
import type { KubeObject } from '@kemu/api';

type Fields = Record<string, unknown>;

/** Copies `value` under `key` unless it is absent (omitempty for strings, pointers and counts). */
function put(out: Fields, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || value === 0) return;
  out[key] = value;
}

export function coreEventToEventsV1(o: KubeObject): KubeObject {
  const e = o as Fields;
  const out: Fields = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: o.metadata, eventTime: e.eventTime ?? null };
  put(out, 'series', e.series);
  put(out, 'reportingController', e.reportingComponent);
  put(out, 'reportingInstance', e.reportingInstance);
  put(out, 'action', e.action);
  put(out, 'reason', e.reason);
  out.regarding = e.involvedObject ?? {};
  put(out, 'related', e.related);
  put(out, 'note', e.message);
  put(out, 'type', e.type);
  out.deprecatedSource = e.source ?? {};
  out.deprecatedFirstTimestamp = e.firstTimestamp ?? null;
  out.deprecatedLastTimestamp = e.lastTimestamp ?? null;
  put(out, 'deprecatedCount', e.count);
  return out as KubeObject;
}

export function eventsV1ToCoreEvent(o: KubeObject): KubeObject {
  const e = o as Fields;
  const out: Fields = { apiVersion: 'v1', kind: 'Event', metadata: o.metadata, involvedObject: e.regarding ?? {} };
  put(out, 'reason', e.reason);
  put(out, 'message', e.note);
  out.source = e.deprecatedSource ?? {};
  out.firstTimestamp = e.deprecatedFirstTimestamp ?? null;
  out.lastTimestamp = e.deprecatedLastTimestamp ?? null;
  put(out, 'count', e.deprecatedCount);
  put(out, 'type', e.type);
  out.eventTime = e.eventTime ?? null;
  put(out, 'series', e.series);
  put(out, 'action', e.action);
  put(out, 'related', e.related);
  // Neither is omitempty in core/v1.
  out.reportingComponent = e.reportingController ?? '';
  out.reportingInstance = e.reportingInstance ?? '';
  return out as KubeObject;
}

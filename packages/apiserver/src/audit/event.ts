// The audit.k8s.io/v1 Event, with its fields in Kubernetes' order, and its two log formats: json (one
// Event per line) and legacy (Kubernetes' one-line "AUDIT:" text).
import type { Level, Stage } from './policy.ts';
import type { RequestAttributes, UserInfo } from './request-info.ts';

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

const REF_KEYS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

/** The reference with empty fields left out and the rest in Go's field order. */
export function objectRef(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const k of REF_KEYS) if (r[k]) out[k] = r[k];
  return out;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  impersonatedUser?: UserInfo;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const EVENT_KEYS = ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'impersonatedUser', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations'] as const;

/** One JSON line, fields in the order Kubernetes writes them whatever order they were filled in. */
export function eventJson(ev: AuditEvent): string {
  const out: Record<string, unknown> = {};
  for (const k of EVENT_KEYS) if (ev[k] !== undefined) out[k] = ev[k];
  return JSON.stringify(out);
}

/** metav1.MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  const us = String(Math.floor(epochMicros) % 1000).padStart(3, '0');
  return `${new Date(ms).toISOString().slice(0, 23)}${us}Z`;
}

/** The Event at RequestReceived: what is known before the handler runs. */
export function newEvent(o: {
  level: Level;
  auditID: string;
  requestURI: string;
  attrs: RequestAttributes;
  sourceIPs: string[];
  userAgent: string | undefined;
  receivedMicros: number;
}): AuditEvent {
  const a = o.attrs;
  const ts = microTime(o.receivedMicros);
  const ev: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: o.level,
    auditID: o.auditID,
    stage: 'RequestReceived',
    requestURI: o.requestURI,
    verb: a.verb,
    user: a.user,
    sourceIPs: o.sourceIPs,
    requestReceivedTimestamp: ts,
    stageTimestamp: ts,
  };
  if (o.userAgent !== undefined) ev.userAgent = o.userAgent;
  // The core group is "" and JSON leaves it out, as Go's omitempty does.
  if (a.isResourceRequest) ev.objectRef = objectRef(a);
  return ev;
}

/** Kubernetes' responseStatus: the code, and for a Status reply its bounded fields. */
export function responseStatus(code: number, body: unknown): ResponseStatus {
  const s = body !== null && typeof body === 'object' && (body as { kind?: unknown }).kind === 'Status' ? (body as Record<string, unknown>) : undefined;
  const out: ResponseStatus = { metadata: {}, code };
  if (s) {
    if (typeof s.status === 'string' && s.status) out.status = s.status;
    if (typeof s.message === 'string' && s.message) out.message = s.message;
    if (typeof s.reason === 'string' && s.reason) out.reason = s.reason;
    if (s.details !== undefined) out.details = s.details;
  }
  // Field order as Go marshals metav1.Status: metadata, status, message, reason, details, code.
  const { code: c, ...rest } = out;
  return { ...rest, code: c };
}

/** Kubernetes' --audit-log-format=legacy line (audit.EventString). */
export function legacyLine(ev: AuditEvent): string {
  const q = (s: string) => JSON.stringify(s);
  const named = ev.user.username !== '';
  const username = named ? ev.user.username : '<none>';
  const groups = named && ev.user.groups.length > 0 ? ev.user.groups.map((g) => q(g)).join(',') : '<none>';
  const ns = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  // time.RFC3339Nano drops trailing zeros of the fraction (and the dot when nothing is left).
  const ts = ev.requestReceivedTimestamp.replace(/\.?0+Z$/, 'Z');
  return (
    `${ts} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ev.sourceIPs[0] ?? '<unknown>')} method=${q(ev.verb)} ` +
    `user=${q(username)} groups=${q(groups)} as="<self>" asgroups="<lookup>" ` +
    `user-agent=${q(ev.userAgent ?? '')} namespace=${q(ns)} uri=${q(ev.requestURI)} response="${response}"`
  );
}

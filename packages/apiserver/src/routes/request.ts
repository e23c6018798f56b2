// The transport-neutral request a REST handler sees, and the reply it returns.
import { errors } from '@kemu/api';
import type { ServerResponse } from 'node:http';
import type { UserInfo } from '../authn/user.ts';
import type { Target } from './target.ts';

export type ResourceTarget = Extract<Target, { kind: 'resource' }>;

export interface ApiRequest {
  method: string;
  target: ResourceTarget;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  contentType: string | undefined;
  /** Decoded body (undefined when empty). */
  body: unknown;
  /** Who the request acts as (after authentication and impersonation); undefined only in unit tests. */
  user?: UserInfo;
  /** Adds an annotation to the request's audit event (admission's audit annotations). */
  annotate?(key: string, value: string): void;
}

export interface ApiReply {
  code: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Already serialized JSON (sent instead of body), e.g. lists assembled from the watch cache. */
  json?: string;
  /** Send body as-is with this content type (e.g. text/plain logs). */
  raw?: { contentType: string; text: string };
  /** A long-running reply: headers are sent at once, then start() writes to and ends the response. */
  stream?: { contentType: string; start(res: ServerResponse): void };
}

/** The registry's write option naming who writes (admission and RBAC's escalation check read it). */
export function asUser(req: Pick<ApiRequest, 'user' | 'annotate'>): { userInfo?: UserInfo; annotate?: (key: string, value: string) => void } {
  return { ...(req.user ? { userInfo: req.user } : {}), ...(req.annotate ? { annotate: req.annotate } : {}) };
}

export function header(req: ApiRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export function isDryRun(q: URLSearchParams): boolean {
  const vals = q.getAll('dryRun');
  for (const v of vals) if (v !== 'All') throw errors.badRequest(`dryRun: unsupported value "${v}": supported values: "All"`);
  return vals.length > 0;
}

/**
 * A boolean query parameter as Kubernetes' query conversion reads it (runtime.Convert_Slice_string_To_bool):
 * absent is undefined; "0" or "false" in any case is false; every other value, "" and "True" included, is true.
 * So it is never refused.
 */
export function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !isFalse(v);
}

/** The only spellings of false in a Kubernetes query parameter. */
export function isFalse(v: string): boolean {
  return v === '0' || v.toLowerCase() === 'false';
}

/** An int64 query parameter, refused as Kubernetes' conversion does: with strconv.ParseInt's error text. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(v);
}

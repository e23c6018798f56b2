// Server answers → StatusError. A metav1.Status body is used as sent; anything else gets the generic
// reason client-go's NewGenericServerResponse gives for the HTTP code.
import { isStatus, REASONS, StatusError, type StatusReason } from '@kemu/api';

const GENERIC: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Expired', 'the resource version requested is too old'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because it is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to respond with a content type that the client supports'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  501: ['NotImplemented', 'the server does not support this request'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

function reasonFor(code: number): StatusReason {
  const g = GENERIC[code];
  if (g) return g[0];
  return code >= 500 ? 'InternalError' : 'BadRequest';
}

function knownReason(r: unknown): r is StatusReason {
  return typeof r === 'string' && Object.prototype.hasOwnProperty.call(REASONS, r);
}

/** Builds the error for a Status object (HTTP error body or a watch ERROR event). */
export function statusErrorFromStatus(status: unknown, httpCode: number): StatusError {
  if (isStatus(status)) {
    const code = typeof status.code === 'number' && status.code > 0 ? status.code : httpCode;
    const reason = knownReason(status.reason) ? status.reason : reasonFor(code);
    return new StatusError(reason, status.message ?? GENERIC[code]?.[1] ?? `unknown error (${code})`, status.details, code);
  }
  return new StatusError(reasonFor(httpCode), GENERIC[httpCode]?.[1] ?? `unknown error (${httpCode})`, undefined, httpCode);
}

/** Builds the error for a non-2xx response body. */
export function statusErrorFromBody(httpCode: number, body: string): StatusError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const err = statusErrorFromStatus(parsed, httpCode);
  if (!isStatus(parsed) && body.trim() !== '' && !GENERIC[httpCode]) {
    return new StatusError(err.reason, `${err.message}: ${body.trim().slice(0, 200)}`, undefined, httpCode);
  }
  return err;
}

export function isNotFound(e: unknown): boolean {
  return e instanceof StatusError && e.code === 404;
}
export function isConflict(e: unknown): boolean {
  return e instanceof StatusError && e.code === 409 && e.reason === 'Conflict';
}
export function isAlreadyExists(e: unknown): boolean {
  return e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists';
}
/** 410: the requested resourceVersion has been compacted (Expired, or Gone from older servers). */
export function isResourceExpired(e: unknown): boolean {
  return e instanceof StatusError && e.code === 410;
}

/** Errors where the request may not have reached the server, or the connection died (worth a retry). */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errCode(e: unknown): string | undefined {
  for (let cur: unknown = e, i = 0; cur && i < 4; i++) {
    const c = (cur as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The connection could not be made: nothing reached the server, so any verb may be retried. */
export function isConnectError(e: unknown): boolean {
  const c = errCode(e);
  return c !== undefined && CONNECT_CODES.has(c);
}

/** The connection broke after it was made: only idempotent verbs may be retried. */
export function isConnectionReset(e: unknown): boolean {
  const c = errCode(e);
  return c !== undefined && RESET_CODES.has(c);
}

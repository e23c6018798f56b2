// One error type for the whole API, with reasons from one table, mapped to metav1.Status in one function.
import type { Status, StatusCause, StatusDetails } from './meta.ts';

export const REASONS = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  NotImplemented: 501,
  ServiceUnavailable: 503,
  Timeout: 504,
  /** metav1.StatusReasonUnknown: an error that is not a Status (a conversion webhook's), sent without a reason. */
  Unknown: 500,
} as const;

export type StatusReason = keyof typeof REASONS;

export class StatusError extends Error {
  readonly code: number;
  constructor(
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    code?: number,
  ) {
    super(message);
    this.name = 'StatusError';
    this.code = code ?? REASONS[reason];
  }

  toStatus(): Status {
    return toStatus(this);
  }
}

export function toStatus(err: StatusError): Status {
  // Kubernetes' NotFound always carries details, "{}" for a path it does not serve; clients read
  // details.name from it (kubectl debug tells a missing subresource from a missing pod that way). An
  // authorization 403 keeps its (possibly empty) details too, as NewForbidden always sets them.
  const keepEmpty = err.reason === 'NotFound' || (err.reason === 'Forbidden' && err.details !== undefined);
  const details = err.details && Object.keys(err.details).length > 0 ? err.details : keepEmpty ? {} : undefined;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: err.message,
    ...(err.reason === 'Unknown' ? {} : { reason: err.reason }),
    ...(details ? { details } : {}),
    code: err.code,
  };
}

/** Narrow an unknown JSON value (e.g. an HTTP error body) to a Status. */
export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/** Constructors for the errors the apiserver returns, with Kubernetes' exact messages. */
export const errors = {
  notFound(qualifiedResource: string, name: string): StatusError {
    return new StatusError('NotFound', `${qualifiedResource} "${name}" not found`, {
      name,
      ...groupKind(qualifiedResource),
    });
  },
  alreadyExists(qualifiedResource: string, name: string): StatusError {
    return new StatusError('AlreadyExists', `${qualifiedResource} "${name}" already exists`, {
      name,
      ...groupKind(qualifiedResource),
    });
  },
  conflict(qualifiedResource: string, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError {
    return new StatusError('Conflict', `Operation cannot be fulfilled on ${qualifiedResource} "${name}": ${why}`, {
      name,
      ...groupKind(qualifiedResource),
    });
  },
  /** kind is the Kind ("Pod"), group the API group; message lists every cause like Kubernetes. */
  invalid(group: string, kind: string, name: string, causes: StatusCause[]): StatusError {
    const qualified = group === '' ? kind : `${kind}.${group}`;
    const list = causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')));
    const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    return new StatusError('Invalid', `${qualified} "${name}" is invalid: ${summary}`, {
      name,
      group: group === '' ? undefined : group,
      kind,
      causes,
    });
  },
  badRequest(message: string): StatusError {
    return new StatusError('BadRequest', message);
  },
  methodNotAllowed(message: string): StatusError {
    return new StatusError('MethodNotAllowed', message);
  },
  gone(message: string): StatusError {
    return new StatusError('Expired', message, undefined, 410);
  },
  tooManyRequests(retryAfterSeconds: number): StatusError {
    return new StatusError('TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds });
  },
  internal(message: string): StatusError {
    return new StatusError('InternalError', `Internal error occurred: ${message}`);
  },
  forbidden(message: string): StatusError {
    return new StatusError('Forbidden', message);
  },
};

function groupKind(qualifiedResource: string): { group?: string; kind: string } {
  const dot = qualifiedResource.indexOf('.');
  if (dot < 0) return { kind: qualifiedResource };
  return { kind: qualifiedResource.slice(0, dot), group: qualifiedResource.slice(dot + 1) };
}

// Probe and lifecycle-handler validation (validateProbe / validateHandler): exactly one handler, non-negative
// timings, a liveness/startup successThreshold of 1, ports as numbers or IANA names.
import type { StatusCause } from '@kemu/api';
import { child, fieldErrors, isRecord } from './field.ts';
import { isValidPortName, isValidPortNum } from '@kemu/api';

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

function validatePort(port: unknown, path: string, out: StatusCause[]): void {
  if (typeof port === 'number') for (const m of isValidPortNum(port)) out.push(fieldErrors.invalid(path, port, m));
  else if (typeof port === 'string') for (const m of isValidPortName(port)) out.push(fieldErrors.invalid(path, port, m));
  else out.push(fieldErrors.required(path));
}

function validateHandler(h: Record<string, unknown>, path: string, kinds: readonly string[], out: StatusCause[]): void {
  const present = kinds.filter((k) => h[k] !== undefined && h[k] !== null);
  if (present.length === 0) {
    out.push(fieldErrors.required(path, 'must specify a handler type'));
    return;
  }
  for (const extra of present.slice(1)) out.push(fieldErrors.forbidden(child(path, extra), 'may not specify more than 1 handler type'));
  const kind = present[0] ?? '';
  const v = h[kind];
  const p = child(path, kind);
  if (!isRecord(v)) return;
  if (kind === 'exec' && (!Array.isArray(v.command) || v.command.length === 0)) out.push(fieldErrors.required(child(p, 'command')));
  if (kind === 'httpGet' || kind === 'tcpSocket') validatePort(v.port, child(p, 'port'), out);
  if (kind === 'grpc' && typeof v.port === 'number') for (const m of isValidPortNum(v.port)) out.push(fieldErrors.invalid(child(p, 'port'), v.port, m));
  if (kind === 'httpGet' && v.scheme !== undefined && v.scheme !== 'HTTP' && v.scheme !== 'HTTPS')
    out.push(fieldErrors.notSupported(child(p, 'scheme'), v.scheme, ['HTTP', 'HTTPS']));
  if (kind === 'sleep' && (typeof v.seconds !== 'number' || v.seconds < 0))
    out.push(fieldErrors.invalid(child(p, 'seconds'), v.seconds ?? null, 'must be greater than or equal to 0'));
}

export function validateProbe(probe: unknown, path: string, kind: 'liveness' | 'readiness' | 'startup'): StatusCause[] {
  const out: StatusCause[] = [];
  if (probe === undefined || probe === null) return out;
  if (!isRecord(probe)) return [fieldErrors.invalid(path, probe, 'must be an object')];
  validateHandler(probe, path, HANDLERS, out);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold', 'terminationGracePeriodSeconds']) {
    const v = probe[f];
    if (v !== undefined && v !== null && (typeof v !== 'number' || v < 0)) out.push(fieldErrors.invalid(child(path, f), v, 'must be greater than or equal to 0'));
  }
  if (kind !== 'readiness' && typeof probe.successThreshold === 'number' && probe.successThreshold !== 1)
    out.push(fieldErrors.invalid(child(path, 'successThreshold'), probe.successThreshold, 'must be 1'));
  return out;
}

export function validateLifecycle(lc: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!isRecord(lc)) return out;
  for (const hook of ['postStart', 'preStop']) {
    const h = lc[hook];
    if (isRecord(h)) validateHandler(h, child(path, hook), ['exec', 'httpGet', 'tcpSocket', 'sleep'], out);
  }
  return out;
}

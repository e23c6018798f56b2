// The audit stage of the request pipeline (after authentication, before impersonation and authorization,
// as in Kubernetes): every response carries an Audit-Id (the request's own Audit-ID header, else a new
// UUID); with a policy, each request the policy audits gets RequestReceived when it arrives,
// ResponseStarted when a long-running one (watch, logs, exec...) sends its headers, and ResponseComplete
// when its response ends. Requests at level None cost one policy evaluation and nothing else.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isLongRunning } from '../long-running.ts';
import { RAW_HEADERS_SENT } from '../watch/route.ts';
import { eventJson, legacyLine, microTime, newEvent, objectRef, responseStatus, type AuditEvent } from './event.ts';
import type { LineSink } from './log-writer.ts';
import { evaluate, LEVELS, type Level, type Policy, type RequestAuditConfig } from './policy.ts';
import { requestAttributes, type UserInfo } from './request-info.ts';

export interface AuditOptions {
  policy: Policy;
  sink: LineSink;
  /** --audit-log-format: json (one Event per line) or legacy. */
  format: 'json' | 'legacy';
  /** Epoch microseconds (injected for tests). */
  nowMicros?: () => number;
}

interface InFlight {
  ev: AuditEvent;
  cfg: RequestAuditConfig;
  emit(stage: 'ResponseStarted' | 'ResponseComplete'): void;
}

const AUDIT_ID = 'audit-id';

/** The client's Audit-ID when it sent a usable one (it is echoed in a header), else a new UUID. */
function auditIdOf(req: FastifyRequest): string {
  const given = req.headers[AUDIT_ID];
  return typeof given === 'string' && /^[\x20-\x7e]+$/.test(given) ? given : randomUUID();
}

export function realNowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

function atLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

/** Kubernetes' utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, without repeats. */
export function sourceIPs(headers: FastifyRequest['headers'], remote: string | undefined): string[] {
  const ips: string[] = [];
  const add = (ip: string) => {
    const v = ip.trim().replace(/^::ffff:(?=\d+\.)/, '');
    if (v && !ips.includes(v)) ips.push(v);
  };
  const xff = headers['x-forwarded-for'];
  for (const ip of (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',')) add(ip);
  const real = headers['x-real-ip'];
  if (typeof real === 'string') add(real);
  if (remote) add(remote);
  return ips;
}

function decodeJson(body: unknown): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : undefined;
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function withoutManagedFields(o: unknown): unknown {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  const rec = o as Record<string, unknown>;
  const meta = rec.metadata;
  let out = rec;
  if (meta !== null && typeof meta === 'object' && 'managedFields' in (meta as object)) {
    const { managedFields: _drop, ...rest } = meta as Record<string, unknown>;
    out = { ...rec, metadata: rest };
  }
  if (Array.isArray(rec.items)) out = { ...out, items: rec.items.map(withoutManagedFields) };
  return out;
}

function metaOf(o: unknown): Record<string, unknown> {
  const m = o !== null && typeof o === 'object' ? (o as { metadata?: unknown }).metadata : undefined;
  return m !== null && typeof m === 'object' ? (m as Record<string, unknown>) : {};
}

const inflight = new WeakMap<FastifyRequest, InFlight>();

/** Installs the stage's hooks; without options only the Audit-Id header is set. */
/** userOf: who made the request (the authentication stage's answer). */
export function installAudit(app: FastifyInstance, o: AuditOptions | undefined, userOf: (req: FastifyRequest) => UserInfo): void {
  if (!o) {
    app.addHook('onRequest', async (req, reply) => {
      reply.raw.setHeader('Audit-Id', auditIdOf(req));
    });
    return;
  }
  const now = o.nowMicros ?? realNowMicros;
  const write = (ev: AuditEvent) => o.sink.write(o.format === 'legacy' ? legacyLine(ev) : eventJson(ev));

  app.addHook('onRequest', async (req, reply) => {
    const auditID = auditIdOf(req);
    reply.raw.setHeader('Audit-Id', auditID);
    const attrs = requestAttributes(req.method, req.url, userOf(req));
    const cfg = evaluate(o.policy, attrs);
    if (cfg.level === 'None') return;
    const ua = req.headers['user-agent'];
    const ev = newEvent({ level: cfg.level, auditID, requestURI: req.url, attrs, sourceIPs: sourceIPs(req.headers, req.socket.remoteAddress), userAgent: ua, receivedMicros: now() });
    let started = false;
    let done = false;
    const emit = (stage: 'ResponseStarted' | 'ResponseComplete') => {
      if (done || (stage === 'ResponseStarted' && started)) return;
      if (stage === 'ResponseComplete') done = true;
      else started = true;
      ev.stage = stage;
      ev.stageTimestamp = microTime(now());
      ev.responseStatus ??= { metadata: {}, code: reply.raw.statusCode };
      if (!cfg.omitStages.has(stage)) write(ev);
    };
    inflight.set(req, { ev, cfg, emit });
    if (!cfg.omitStages.has('RequestReceived')) write(ev);
    const res: ServerResponse = reply.raw;
    if (isLongRunning(req.url, req.method)) {
      // Long-running requests are answered outside fastify's reply path: see their headers go out.
      const writeHead = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
        const r = writeHead.apply(this, args);
        emit('ResponseStarted');
        return r;
      } as ServerResponse['writeHead'];
      res.once(RAW_HEADERS_SENT, () => emit('ResponseStarted'));
    }
    res.once('close', () => emit('ResponseComplete'));
  });

  app.addHook('preHandler', async (req) => {
    const f = inflight.get(req);
    if (!f || (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH')) return;
    // At Metadata level only a create needs its body read (for the object's name).
    if (!atLeast(f.cfg.level, 'Request') && !(req.method === 'POST' && f.ev.objectRef && !f.ev.objectRef.name)) return;
    const body = decodeJson(req.body);
    if (body === undefined) return;
    // Kubernetes completes objectRef from the decoded object (a create names it only in its body).
    if (f.ev.objectRef && req.method !== 'PATCH') {
      const m = metaOf(body);
      const r = f.ev.objectRef;
      const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
      f.ev.objectRef = objectRef({ ...r, namespace: r.namespace || s(m.namespace), name: r.name || s(m.name), uid: r.uid || s(m.uid), resourceVersion: r.resourceVersion || s(m.resourceVersion) });
    }
    if (atLeast(f.cfg.level, 'Request')) f.ev.requestObject = f.cfg.omitManagedFields ? withoutManagedFields(body) : body;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const f = inflight.get(req);
    if (!f) return payload;
    const failed = reply.statusCode >= 400;
    if (!failed && !atLeast(f.cfg.level, 'RequestResponse')) return payload;
    const ct = String(reply.getHeader('content-type') ?? '');
    if (!ct.includes('json')) return payload;
    const body = decodeJson(payload);
    if (body === undefined) return payload;
    f.ev.responseStatus = responseStatus(reply.statusCode, body);
    if (atLeast(f.cfg.level, 'RequestResponse')) f.ev.responseObject = f.cfg.omitManagedFields ? withoutManagedFields(body) : body;
    return payload;
  });
}

/** Records, once impersonation has run, whom the request acts as when that is not who authenticated. */
export function auditImpersonation(req: FastifyRequest, user: UserInfo | undefined): void {
  const f = inflight.get(req);
  if (f && user && user !== f.ev.user) f.ev.impersonatedUser = user;
}

/** Adds an annotation to the request's audit event (for later stages: authorization, admission). */
export function auditAnnotate(req: FastifyRequest, key: string, value: string): void {
  const f = inflight.get(req);
  if (f) f.ev.annotations = { ...(f.ev.annotations ?? {}), [key]: value };
}

// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of every configuration (by name) that a
// request matches are called; mutating ones in order, each seeing the last one's JSONPatch, those with
// reinvocationPolicy IfNeeded once more when a later webhook changed the object; validating ones in parallel.
// Failures follow failurePolicy, refusals and errors read as Kubernetes'.
import { errors, qualifiedResource, R, REASONS, StatusError, type KubeObject, type ResourceInfo, type StatusReason } from '@kemu/api';
import type { AdmissionAttributes, AdmissionContext, AdmissionPlugin } from '../types.ts';
import { isObj } from '../types.ts';
import { jsonEqual } from '../../validation/field.ts';
import { applyPatch } from '../../patch/index.ts';
import { postWebhook, WebhookCallError, webhookTarget } from './client.ts';
import { namespaceSelectorMatches, objectSelectorMatches, rulesMatch } from './matching.ts';
import { evaluateMatchConditions, type MatchConditionSpec } from './match-conditions.ts';
import { admissionReview, parseReviewResponse } from './review.ts';

type Obj = Record<string, unknown>;

/** Webhooks never see writes of the admission configuration kinds, so a broken webhook cannot lock them in. */
function exempt(r: ResourceInfo): boolean {
  return r.group === R.validatingwebhookconfigurations.group && /^(validating|mutating)(webhookconfigurations|admissionpolicies|admissionpolicybindings)$/.test(r.plural);
}

async function webhooksOf(r: ResourceInfo, ctx: AdmissionContext): Promise<Obj[]> {
  const configs = (await ctx.listObjects?.(r, undefined)) ?? [];
  return [...configs]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .flatMap((c) => (Array.isArray(c.webhooks) ? c.webhooks.filter(isObj) : []));
}

const nameOf = (h: Obj): string => (typeof h.name === 'string' ? h.name : '');
const ignoresFailures = (h: Obj): boolean => h.failurePolicy === 'Ignore';

/** ShouldCallHook: rules, selectors, then matchConditions (an evaluation error fails closed with 403 unless Ignore). */
async function shouldCall(h: Obj, attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<boolean> {
  if (!rulesMatch(h, attrs)) return false;
  if (!(await namespaceSelectorMatches(h, attrs, ctx))) return false;
  if (!objectSelectorMatches(h, attrs)) return false;
  const conds = (Array.isArray(h.matchConditions) ? h.matchConditions : []).filter(isObj).map((c) => ({ name: String(c.name ?? ''), expression: String(c.expression ?? '') }) satisfies MatchConditionSpec);
  const m = await evaluateMatchConditions(conds, attrs);
  if ('error' in m) {
    if (ignoresFailures(h)) return false;
    throw new StatusError('Forbidden', `${qualifiedResource(attrs.resource)} "${attrs.name}" is forbidden: ${m.error}`, { name: attrs.name, group: attrs.resource.group || undefined, kind: attrs.resource.plural });
  }
  return m.matches;
}

/** webhookerrors.ToStatusErr: the webhook's own status, code at least 400, message prefixed with who denied. */
function denied(name: string, status: Obj | undefined): StatusError {
  const by = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof status?.code === 'number' && status.code >= 400 ? status.code : 400;
  const message = typeof status?.message === 'string' && status.message !== '' ? status.message : typeof status?.reason === 'string' && status.reason !== '' ? status.reason : '';
  const reasonGiven = typeof status?.reason === 'string' && status.reason in REASONS ? (status.reason as StatusReason) : undefined;
  const reason = reasonGiven ?? ((Object.entries(REASONS).find(([, c]) => c === code)?.[0] ?? 'BadRequest') as StatusReason);
  const details = isObj(status?.details) ? (status.details as ConstructorParameters<typeof StatusError>[2]) : undefined;
  return new StatusError(reason, message ? `${by}: ${message}` : `${by} without explanation`, details, code);
}

/** Calls one webhook; returns its response, or undefined when a failure is ignored. */
async function call(h: Obj, attrs: AdmissionAttributes, ctx: AdmissionContext, mutating: boolean) {
  const name = nameOf(h);
  if (attrs.dryRun && (h.sideEffects === 'Some' || h.sideEffects === 'Unknown')) throw errors.badRequest(`admission webhook ${JSON.stringify(name)} does not support dry run`);
  const timeout = typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10;
  const { uid, review } = admissionReview(attrs);
  try {
    const target = await webhookTarget(h.clientConfig, ctx);
    return parseReviewResponse(await postWebhook(target, review, timeout), uid, mutating);
  } catch (e) {
    if (!(e instanceof WebhookCallError)) throw e;
    if (ignoresFailures(h)) return undefined;
    throw errors.internal(`failed calling webhook ${JSON.stringify(name)}: ${e.message}`);
  }
}

function record(h: Obj, attrs: AdmissionAttributes, res: { warnings: string[]; auditAnnotations: Record<string, string> }): void {
  for (const w of res.warnings) attrs.warn?.(w);
  for (const [k, v] of Object.entries(res.auditAnnotations)) attrs.annotate?.(`${nameOf(h)}/${k}`, v);
}

/** Replaces the object's fields in place: the registry holds this object. */
function replaceInPlace(target: KubeObject, next: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Obj)[k];
  Object.assign(target, next);
}

async function callMutating(h: Obj, attrs: AdmissionAttributes, ctx: AdmissionContext): Promise<boolean> {
  const res = await call(h, attrs, ctx, true);
  if (!res) return false;
  if (!res.allowed) throw denied(nameOf(h), res.status);
  record(h, attrs, res);
  if (!res.patch || !attrs.object) return false;
  let next: KubeObject;
  try {
    next = applyPatch('application/json-patch+json', attrs.object, res.patch, attrs.resource);
  } catch (e) {
    throw errors.internal((e as Error).message);
  }
  if (jsonEqual(next, attrs.object)) return false;
  replaceInPlace(attrs.object, next);
  return true;
}

export const mutatingAdmissionWebhookPlugin: AdmissionPlugin = {
  name: 'MutatingAdmissionWebhook',
  async admit(attrs, ctx) {
    if (exempt(attrs.resource)) return;
    const hooks = await webhooksOf(R.mutatingwebhookconfigurations, ctx);
    if (hooks.length === 0) return;
    // Webhooks that asked to be reinvoked and were called before a later change of the object.
    const calledIfNeeded = new Set<Obj>();
    const reinvoke = new Set<Obj>();
    for (const h of hooks) {
      if (!(await shouldCall(h, attrs, ctx))) continue;
      const changed = await callMutating(h, attrs, ctx);
      if (changed) for (const c of calledIfNeeded) if (c !== h) reinvoke.add(c);
      if (h.reinvocationPolicy === 'IfNeeded') calledIfNeeded.add(h);
    }
    for (const h of hooks) if (reinvoke.has(h) && (await shouldCall(h, attrs, ctx))) await callMutating(h, attrs, ctx);
  },
};

export const validatingAdmissionWebhookPlugin: AdmissionPlugin = {
  name: 'ValidatingAdmissionWebhook',
  async validate(attrs, ctx) {
    if (exempt(attrs.resource)) return;
    const hooks = await webhooksOf(R.validatingwebhookconfigurations, ctx);
    if (hooks.length === 0) return;
    const matched: Obj[] = [];
    for (const h of hooks) if (await shouldCall(h, attrs, ctx)) matched.push(h);
    const results = await Promise.allSettled(
      matched.map(async (h) => {
        const res = await call(h, attrs, ctx, false);
        if (!res) return;
        record(h, attrs, res);
        if (!res.allowed) throw denied(nameOf(h), res.status);
      }),
    );
    // The first failure in webhook order, as Kubernetes reports the first error it collects.
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  },
};

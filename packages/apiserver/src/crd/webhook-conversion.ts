// Conversion strategy Webhook, as apiextensions-apiserver's webhookConverter: the objects not already in the
// desired version go to the CRD's webhook in one apiextensions.k8s.io/v1 ConversionReview (request.uid,
// desiredAPIVersion, objects), POSTed to its url or Service (caBundle, path, port; 30 s, which the REST client
// also puts in the URL as `?timeout=30s`). The reply must be a v1 ConversionReview with the same uid, result
// Success and as many convertedObjects, each in the desired version, of the same kind, name, namespace and uid;
// the metadata is the original's but for labels and annotations, which the webhook may change (validated as
// labels and annotations are).
// Errors carry Kubernetes' texts; the REST layer answers them as a 500 without a reason (crd/webhook-views.ts).
import { randomUUID } from 'node:crypto';
import type { KubeObject, StatusCause } from '@kemu/api';
import { postWebhook, webhookTarget, WebhookCallError } from '../admission/webhook/client.ts';
import type { AdmissionContext } from '../admission/types.ts';
import { asArray, asRecord, asString, isRecord } from '../validation/field.ts';
import { validateAnnotations, validateLabels } from '../validation/meta.ts';

/** Kubernetes' webhook client timeout for conversion (the REST client's, not the request's). */
const TIMEOUT_SECONDS = 30;

export class ConversionError extends Error {}

export interface ConversionWebhook {
  clientConfig: Record<string, unknown>;
  reviewVersions: string[];
}

/** The CRD's conversion webhook when its strategy is Webhook; undefined for None. */
export function conversionWebhookOf(crd: KubeObject): ConversionWebhook | undefined {
  const conv = asRecord(asRecord(crd.spec)?.conversion);
  if (conv?.strategy !== 'Webhook') return undefined;
  const hook = asRecord(conv.webhook) ?? {};
  return {
    clientConfig: asRecord(hook.clientConfig) ?? {},
    reviewVersions: (asArray(hook.conversionReviewVersions) ?? []).map((v) => asString(v) ?? ''),
  };
}

/** Go's GroupVersionKind.String(): `stable.example.com/v1, Kind=CronTab`. */
export function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
  return `${gv}, Kind=${kind}`;
}

const aggregate = (causes: StatusCause[]): string => {
  const msgs = causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`);
  return msgs.length === 1 ? (msgs[0] ?? '') : `[${msgs.join(', ')}]`;
};

const metaOf = (o: Record<string, unknown>) => asRecord(o.metadata) ?? {};

/** validateConvertedObject: kind, name, namespace and uid kept. */
function sameIdentity(orig: KubeObject, out: Record<string, unknown>): string | undefined {
  const a = metaOf(orig as unknown as Record<string, unknown>);
  const b = metaOf(out);
  const s = (v: unknown) => asString(v) ?? '';
  if (s(orig.kind) !== s(out.kind)) return `must have the same kind: ${s(orig.kind)} != ${s(out.kind)}`;
  if (s(a.name) !== s(b.name)) return `must have the same name: ${s(a.name)} != ${s(b.name)}`;
  if (s(a.namespace) !== s(b.namespace)) return `must have the same namespace: ${s(a.namespace)} != ${s(b.namespace)}`;
  if (s(a.uid) !== s(b.uid)) return `must have the same UID: ${s(a.uid)} != ${s(b.uid)}`;
  return undefined;
}

/** restoreObjectMeta: the original's metadata with the converted labels and annotations. */
function restoreMeta(orig: KubeObject, out: Record<string, unknown>): string | undefined {
  if (!('metadata' in out)) return 'missing metadata in converted object';
  const response = out.metadata;
  if (!isRecord(response)) return `invalid metadata of type ${goType(response)} in converted object`;
  const meta: Record<string, unknown> = structuredClone(metaOf(orig as unknown as Record<string, unknown>));
  for (const fld of ['labels', 'annotations'] as const) {
    const got = response[fld];
    if (got === undefined || got === null) {
      delete meta[fld];
      continue;
    }
    if (!isRecord(got)) return `invalid metadata.${fld} of type ${goType(got)} in converted object`;
    const before = asRecord(meta[fld]) ?? {};
    let changed = Object.keys(before).length !== Object.keys(got).length;
    for (const [k, v] of Object.entries(got)) {
      if (typeof v !== 'string') return `metadata.${fld}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = fld === 'labels' ? validateLabels(got, 'metadata.labels') : validateAnnotations(got, 'metadata.annotation');
      if (errs.length > 0) return aggregate(errs);
    }
    meta[fld] = got;
  }
  out.metadata = meta;
  return undefined;
}

/** The Go type a JSON value decodes to, as %T prints it. */
function goType(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'map[string]interface {}';
}

export interface ConvertRequest {
  hook: ConversionWebhook;
  objects: readonly KubeObject[];
  desiredAPIVersion: string;
  /** The input's GroupVersionKind as Go prints it (the list's for a list), for messages. */
  subject: string;
  /** A list's items are converted in one review, with index-numbered messages. */
  list: boolean;
  /** Resolves a Service reference (the server's lister). */
  listObjects?: AdmissionContext['listObjects'];
}

/** The objects in the desired version, in order; those already in it are not sent. Throws ConversionError. */
export async function convertByWebhook(req: ConvertRequest): Promise<KubeObject[]> {
  const { hook, desiredAPIVersion, subject } = req;
  const pending = req.objects.filter((o) => o.apiVersion !== desiredAPIVersion);
  if (pending.length === 0) return [...req.objects];
  const fail = (m: string) => new ConversionError(m);
  // The first review version the server knows, in the CRD's order.
  const version = hook.reviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!version) throw fail('no supported conversion review versions');
  const uid = randomUUID();
  const review = {
    apiVersion: `apiextensions.k8s.io/${version}`,
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion, objects: pending },
  };
  let reply: unknown;
  try {
    const ctx = req.listObjects ? { listObjects: req.listObjects } : {};
    const target = await webhookTarget(hook.clientConfig, ctx);
    reply = await postWebhook(target, review, TIMEOUT_SECONDS);
  } catch (e) {
    const msg = e instanceof WebhookCallError ? e.message.replace(/^failed to call webhook: /, '') : String(e);
    throw fail(`conversion webhook for ${subject} failed: ${msg}`);
  }
  const converted = convertedObjects(reply, uid, version);
  if (typeof converted === 'string') throw fail(`conversion webhook for ${subject} failed: ${converted}`);
  if (converted.length !== pending.length) throw fail(`conversion webhook for ${subject} returned ${converted.length} objects, expected ${pending.length}`);
  const out: KubeObject[] = [];
  let next = 0;
  for (const orig of req.objects) {
    if (orig.apiVersion === desiredAPIVersion) {
      out.push(orig);
      continue;
    }
    const i = next++;
    const raw = converted[i];
    // Kubernetes numbers list items after counting the one at hand (its index+1), a single object as 0.
    const at = req.list ? `invalid converted object at index ${i + 1}` : 'invalid object at index 0';
    if (!isRecord(raw)) throw fail(`conversion webhook for ${subject} returned ${at}: Object 'Kind' is missing in converted object`);
    const obj = structuredClone(raw);
    const gv = asString(obj.apiVersion) ?? '';
    if (gv !== desiredAPIVersion) throw fail(`conversion webhook for ${subject} returned ${at}: invalid groupVersion (expected ${desiredAPIVersion}, received ${gv})`);
    const kind = asString(obj.kind) ?? '';
    if (kind !== orig.kind) throw fail(`conversion webhook for ${subject} returned ${at}: invalid kind (expected ${orig.kind}, received ${kind})`);
    const bad = sameIdentity(orig, obj);
    if (bad) throw fail(`conversion webhook for ${subject} returned ${req.list ? `invalid converted object at index ${i + 1}` : 'invalid object'}: ${bad}`);
    const badMeta = restoreMeta(orig, obj);
    if (badMeta) throw fail(`conversion webhook for ${subject} returned invalid metadata${req.list ? ` in object at index ${i + 1}` : ''}: ${badMeta}`);
    out.push(obj as unknown as KubeObject);
  }
  return out;
}

/** getConvertedObjectsFromResponse: the converted objects, or the error text (v1beta1 replies were never checked for kind and uid). */
function convertedObjects(reply: unknown, uid: string, version: string): unknown[] | string {
  const r = isRecord(reply) ? reply : {};
  const v1 = version === 'v1';
  if (v1 && (r.apiVersion !== 'apiextensions.k8s.io/v1' || r.kind !== 'ConversionReview')) {
    const got = gvkString(asString(r.apiVersion) ?? '', asString(r.kind) ?? '');
    return `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${got}`;
  }
  const resp = asRecord(r.response);
  if (!resp) return 'no response provided';
  const got = asString(resp.uid) ?? '';
  if (v1 && got !== uid) return `expected response.uid="${uid}", got "${got}"`;
  const result = asRecord(resp.result) ?? {};
  if (result.status !== 'Success') {
    const m = asString(result.message);
    return m ? m : `response.result.status was '${asString(result.status) ?? ''}', not 'Success'`;
  }
  return asArray(resp.convertedObjects) ?? [];
}

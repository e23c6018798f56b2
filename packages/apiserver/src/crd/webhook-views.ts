// The versions of a custom resource whose conversion strategy is Webhook, converted at request time: the
// watch cache keeps such a resource's stored form (no cache per version, as a converted copy would need a
// review per object and version on every change), and the REST layer converts at its boundary — the objects
// it reads (a list's items in one ConversionReview), the object it writes (to the storage version, after
// admission and validation in the request version) and each watch event, in order (watch/converting-sink.ts).
// A failed conversion is a 500 with the converter's text and no reason, as Kubernetes answers errors that are not a Status.
import { StatusError, type KubeObject } from '@kemu/api';
import type { AdmissionContext } from '../admission/types.ts';
import { applyDefaults } from './structural.ts';
import { convertByWebhook, ConversionError, gvkString, type ConversionWebhook } from './webhook-conversion.ts';

export interface AsyncConversion {
  /** Stored objects (never mutated) as the view's version serves them, in order; a list's items in one review. */
  fromStorage(objects: readonly KubeObject[], list: boolean): Promise<KubeObject[]>;
  /** An object of the view's version in the storage version. */
  toStorage(obj: KubeObject): Promise<KubeObject>;
}

export interface WebhookViewOptions {
  hook: ConversionWebhook;
  group: string;
  version: string;
  storageVersion: string;
  /** The view version's schema: its defaults apply to what is read, as Kubernetes' storage decoder applies them. */
  schema: Record<string, unknown> | undefined;
  /** Resolves a Service reference in the webhook's clientConfig. */
  listObjects?: AdmissionContext['listObjects'];
}

/** The objects in `desired`, the errors as Kubernetes answers them (500, the converter's message). */
async function convert(o: WebhookViewOptions, objects: readonly KubeObject[], desired: string, list: boolean): Promise<KubeObject[]> {
  const first = objects.find((x) => x.apiVersion !== desired);
  if (!first) return [...objects];
  try {
    return await convertByWebhook({
      hook: o.hook,
      objects,
      desiredAPIVersion: desired,
      subject: gvkString(first.apiVersion ?? '', first.kind ?? ''),
      list,
      ...(o.listObjects ? { listObjects: o.listObjects } : {}),
    });
  } catch (e) {
    // Kubernetes passes the converter's error on as it is: a 500 Status without a reason.
    if (e instanceof ConversionError) throw new StatusError('Unknown', e.message);
    throw e;
  }
}

export function webhookConversion(o: WebhookViewOptions): AsyncConversion {
  const viewVersion = `${o.group}/${o.version}`;
  const storageVersion = `${o.group}/${o.storageVersion}`;
  return {
    async fromStorage(objects, list) {
      const out = await convert(o, objects, viewVersion, list);
      return out.map((x, i) => {
        // What the webhook sent back is ours; an object already in the version is the caller's (or the cache's).
        const own = x === objects[i] ? structuredClone(x) : x;
        if (o.schema) applyDefaults(own, o.schema);
        return own;
      });
    },
    async toStorage(obj) {
      const [out] = await convert(o, [obj], storageVersion, false);
      return out ?? obj;
    },
  };
}

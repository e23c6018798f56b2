// The per-kind pieces another part of this package provides (strategies, patch, selectors, admission),
// resolved once at startup. Each is optional while it is being written: a missing strategy is a no-op,
// a missing patch or selector implementation is refused by name (never silently ignored).
import { errors, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { applyPatch } from './patch/index.ts';
import { objectFields } from './selectors/fields.ts';
import { parseFieldSelector } from './selectors/fields.ts';
import { parseLabelSelector } from './selectors/labels.ts';
import { strategyFor } from './strategy/index.ts';
import type { ResourceStrategy } from './strategy/types.ts';

export type LabelMatcher = (labels: Record<string, string>) => boolean;
export type FieldMatcher = (fields: Record<string, string>) => boolean;

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource: ResourceInfo;
  subresource?: string;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
}

export interface Extensions {
  strategyFor(r: ResourceInfo): ResourceStrategy | undefined;
  applyPatch(contentType: string, original: KubeObject, patch: unknown, r: ResourceInfo): KubeObject;
  parseLabelSelector(text: string): LabelMatcher;
  parseFieldSelector(text: string, r: ResourceInfo): FieldMatcher;
  /** The selectable fields of an object (metadata.name, metadata.namespace, spec.nodeName, ...). */
  fieldsOf(r: ResourceInfo, obj: KubeObject): Record<string, string>;
  /** Mutating then validating admission; throws StatusError to reject. */
  admit(attrs: AdmissionAttributes): Promise<void>;
}

type Fn = (...args: unknown[]) => unknown;

async function load(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(path)) as Record<string, unknown>;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

function fn(mod: Record<string, unknown> | undefined, name: string): Fn | undefined {
  const f = mod?.[name];
  return typeof f === 'function' ? (f as Fn) : undefined;
}

/** Adapts whatever a selector parser returns (a function or an object with matches()) to a predicate. */
function toMatcher(m: unknown): (v: Record<string, string>) => boolean {
  if (typeof m === 'function') return (v) => Boolean((m as Fn)(v));
  if (typeof m === 'object' && m !== null && typeof (m as { matches?: unknown }).matches === 'function') {
    const obj = m as { matches: Fn };
    return (v) => Boolean(obj.matches(v));
  }
  throw errors.internal('selector parser returned no matcher');
}

export async function loadExtensions(): Promise<Extensions> {
  // Specifiers are variables so this file type-checks before those modules exist.
  const base = new URL('./', import.meta.url).href;
  const admission = await load(base + 'admission/index.ts');
  const admitFn = fn(admission, 'admit');
  return {
    strategyFor,
    applyPatch,
    parseLabelSelector: (text) => toMatcher(parseLabelSelector(text)),
    parseFieldSelector: (text, r) => toMatcher(parseFieldSelector(text, r)),
    fieldsOf: (r, obj) => objectFields(r, obj),
    async admit(attrs) {
      if (admitFn) await admitFn(attrs);
    },
  };
}

/** Extensions with no-op strategies and admission (unit tests of the generic machinery). */
export function noExtensions(overrides: Partial<Extensions> = {}): Extensions {
  return {
    strategyFor: () => undefined,
    applyPatch: (contentType) => {
      throw new StatusError('UnsupportedMediaType', `the patch type ${contentType} is not supported by this server build`);
    },
    parseLabelSelector: () => {
      throw errors.badRequest('labelSelector is not supported by this server build');
    },
    parseFieldSelector: () => {
      throw errors.badRequest('fieldSelector is not supported by this server build');
    },
    fieldsOf: (r, obj) => objectFields(r, obj),
    admit: async () => undefined,
    ...overrides,
  };
}

// The per-kind pieces the generic machinery calls (strategies, patch, selectors, admission) behind one
// interface, so the REST layer can be tested with no-op stand-ins (noExtensions).
import { errors, StatusError, type KubeObject, type ResourceInfo } from '@kemu/api';
import { admissionWith, ADMISSION_PLUGINS, type AdmissionAttributes, type AdmissionContext, type AdmissionPlugin } from './admission/index.ts';
import { withClusterPolicy } from './validation/cluster-policy.ts';
import { applyPatch } from './patch/index.ts';
import { objectFields } from './selectors/fields.ts';
import { parseFieldSelector } from './selectors/fields.ts';
import { parseLabelSelector } from '@kemu/api';
import { strategyFor } from './strategy/index.ts';
import type { ResourceStrategy } from './strategy/types.ts';

export type LabelMatcher = (labels: Record<string, string>) => boolean;
export type FieldMatcher = (fields: Record<string, string>) => boolean;

export type { AdmissionAttributes };

export interface Extensions {
  strategyFor(r: ResourceInfo): ResourceStrategy | undefined;
  applyPatch(contentType: string, original: KubeObject, patch: unknown, r: ResourceInfo): KubeObject;
  parseLabelSelector(text: string): LabelMatcher;
  parseFieldSelector(text: string, r: ResourceInfo): FieldMatcher;
  /** The selectable fields of an object (metadata.name, metadata.namespace, spec.nodeName, ...). */
  fieldsOf(r: ResourceInfo, obj: KubeObject): Record<string, string>;
  /** Mutating admission; throws StatusError to reject. */
  admit(attrs: AdmissionAttributes): Promise<void>;
  /** Validating admission, after the object's own validation; throws StatusError to reject. */
  validateAdmission(attrs: AdmissionAttributes): Promise<void>;
}

export interface ExtensionOptions {
  /** The admission chain (default: kube-apiserver's default-on plugins that kemu implements). */
  admissionPlugins?: readonly AdmissionPlugin[];
  /** --allow-privileged: when false, validation refuses privileged containers. */
  allowPrivileged?: boolean;
}

type Fn = (...args: unknown[]) => unknown;

/** Adapts whatever a selector parser returns (a function or an object with matches()) to a predicate. */
function toMatcher(m: unknown): (v: Record<string, string>) => boolean {
  if (typeof m === 'function') return (v) => Boolean((m as Fn)(v));
  if (typeof m === 'object' && m !== null && typeof (m as { matches?: unknown }).matches === 'function') {
    const obj = m as { matches: Fn };
    return (v) => Boolean(obj.matches(v));
  }
  throw errors.internal('selector parser returned no matcher');
}

/** The real per-kind pieces; `admission` gives the admission plugins their store lookups. */
export function loadExtensions(admission: AdmissionContext = {}, opts: ExtensionOptions = {}): Extensions {
  const chain = admissionWith(admission, opts.admissionPlugins ?? ADMISSION_PLUGINS);
  const allowPrivileged = opts.allowPrivileged ?? false;
  const strategies = new Map<ResourceInfo, ResourceStrategy | undefined>();
  return {
    strategyFor: (r) => {
      if (!strategies.has(r)) strategies.set(r, withClusterPolicy(r, strategyFor(r), { allowPrivileged }));
      return strategies.get(r);
    },
    applyPatch,
    parseLabelSelector: (text) => toMatcher(parseLabelSelector(text)),
    parseFieldSelector: (text, r) => toMatcher(parseFieldSelector(text, r)),
    fieldsOf: (r, obj) => objectFields(r, obj),
    admit: (attrs) => chain.admit(attrs),
    validateAdmission: (attrs) => chain.validate(attrs),
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
    validateAdmission: async () => undefined,
    ...overrides,
  };
}

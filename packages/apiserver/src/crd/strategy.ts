// The strategy of a custom resource (apiextensions-apiserver's customresource strategy): metadata validation,
// generation (1 on create, +1 on a change outside metadata), with a status subresource the main resource
// keeps the stored status and /status keeps everything else, the Table of the version's printer columns,
// and validation by the validators registered for the definition (schema, x-kubernetes-validations rules).
import type { KubeObject, ResourceInfo, StatusCause } from '@kemu/api';
import { buildStrategy } from '../strategy/common.ts';
import type { ResourceStrategy } from '../strategy/types.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/meta.ts';
import { definitionOf } from './definitions.ts';
import { customResourcePrinter } from './printer.ts';

/** Validates one object of a custom resource; `old` is set on update. Returns causes with Kubernetes' paths. */
export type CustomResourceValidator = (obj: KubeObject, old: KubeObject | undefined) => StatusCause[];

/**
 * Builds the validator of one served version from its CRD (undefined when it has nothing to check). The hook
 * for the schema checker and for CEL `x-kubernetes-validations` rules: register a factory once at start-up.
 */
export type CustomResourceValidatorFactory = (crd: KubeObject, version: string) => CustomResourceValidator | undefined;

const factories: CustomResourceValidatorFactory[] = [];

export function registerCustomResourceValidator(f: CustomResourceValidatorFactory): void {
  if (!factories.includes(f)) factories.push(f);
}

function validatorsFor(r: ResourceInfo): CustomResourceValidator[] {
  const crd = definitionOf(r);
  if (!crd) return [];
  return factories.flatMap((f) => f(crd, r.version) ?? []);
}

export function customResourceStrategy(r: ResourceInfo): ResourceStrategy {
  const hasStatus = r.subresources.some((s) => s.name === 'status');
  const validators = validatorsFor(r);
  const meta = { namespaced: r.namespaced };
  const validateUpdate = (o: KubeObject, old: KubeObject): StatusCause[] => [...validateObjectMetaUpdate(o.metadata, old.metadata, meta), ...validators.flatMap((v) => v(o, old))];
  const s = buildStrategy(r, {
    validate: (o) => [...validateObjectMeta(o.metadata, meta), ...validators.flatMap((v) => v(o, undefined))],
    validateUpdate,
    validateStatusUpdate: (o, old) => [...validateObjectMetaUpdate(o.metadata, old.metadata, meta), ...validators.flatMap((v) => v(o, old))],
    ...(hasStatus ? { status: {} } : {}),
    generation: true,
  });
  return { ...s, validateScaleUpdate: validateUpdate, printer: customResourcePrinter(r) };
}

// Validation of CustomResourceDefinitions (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation):
// the name is <plural>.<group>, the group a dotted DNS subdomain, names DNS-1035 labels (kind and listKind in
// mixed case), scope Cluster or Namespaced, unique versions with exactly one storage version, a schema per
// version, printer columns and scale paths; on update group and plural never change, and once Established
// neither do scope and kind. The schemas' own rules (structural, OpenAPI, defaults, CEL) are crd-schema-rules.ts'.
import type { KubeObject, StatusCause } from '@kemu/api';
import { validateSchemaRules } from './crd-schema-rules.ts';
import { asArray, asRecord, asString, child, fieldErrors, index, isRecord } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1035Label, isDNS1123Subdomain } from '@kemu/api';
import { GoValue } from './goformat.ts';
import { validateClientConfig } from './admissionregistration.ts';

const SCOPES = ['Cluster', 'Namespaced'];
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_STRATEGIES = ['None', 'Webhook'];

/** Go's %#v of spec.versions is long; Kubernetes prints it whole, kemu names its type. */
const versionsValue = new GoValue('[]apiextensions.CustomResourceDefinitionVersion{…}');

function validateNames(names: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const label = (field: string, mixedCase: boolean) => {
    const v = asString(names[field]);
    if (!v) return;
    const errs = isDNS1035Label(mixedCase ? v.toLowerCase() : v);
    if (errs.length > 0) out.push(fieldErrors.invalid(child(path, field), v, (mixedCase ? 'may have mixed case, but should otherwise match: ' : '') + errs.join(',')));
  };
  label('plural', false);
  label('singular', false);
  label('kind', true);
  label('listKind', true);
  for (const list of ['shortNames', 'categories'] as const)
    (asArray(names[list]) ?? []).forEach((s, i) => {
      const errs = isDNS1035Label(String(s));
      if (errs.length > 0) out.push(fieldErrors.invalid(index(child(path, list), i), s, errs.join(',')));
    });
  const kind = asString(names.kind);
  if (kind && kind === names.listKind) out.push(fieldErrors.invalid(child(path, 'listKind'), kind, 'kind and listKind may not be the same'));
  return out;
}

/** A JSONPath Kubernetes accepts for columns and scale: it starts at the object's root with a dot. */
function simplePathErrors(p: string, path: string): StatusCause[] {
  if (!p.startsWith('.') || p === '.') return [fieldErrors.invalid(path, p, 'must be a simple json path starting with .')];
  return [];
}

/** Scale paths are plain field paths, without array notation. */
function fieldPathErrors(p: string, path: string): StatusCause[] {
  if (!/^(\.[^.[\]]+)+$/.test(p)) return [fieldErrors.invalid(path, p, 'must be a simple json path without array notation')];
  return [];
}

function validateColumn(col: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!asString(col.name)) out.push(fieldErrors.required(child(path, 'name')));
  const t = asString(col.type);
  if (!t) out.push(fieldErrors.required(child(path, 'type'), `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(t)) out.push(fieldErrors.invalid(child(path, 'type'), t, `must be one of ${COLUMN_TYPES.join(',')}`));
  const f = asString(col.format);
  if (f && !COLUMN_FORMATS.includes(f)) out.push(fieldErrors.invalid(child(path, 'format'), f, `must be one of ${COLUMN_FORMATS.join(',')}`));
  const jp = asString(col.jsonPath);
  if (!jp) out.push(fieldErrors.required(child(path, 'jsonPath')));
  else out.push(...simplePathErrors(jp, child(path, 'jsonPath')));
  return out;
}

function validateScale(scale: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = asString(scale.specReplicasPath);
  if (!spec) out.push(fieldErrors.required(child(path, 'specReplicasPath')));
  else if (!spec.startsWith('.spec.')) out.push(fieldErrors.invalid(child(path, 'specReplicasPath'), spec, 'should be a json path under .spec'));
  else out.push(...fieldPathErrors(spec, child(path, 'specReplicasPath')));
  const status = asString(scale.statusReplicasPath);
  if (!status) out.push(fieldErrors.required(child(path, 'statusReplicasPath')));
  else if (!status.startsWith('.status.')) out.push(fieldErrors.invalid(child(path, 'statusReplicasPath'), status, 'should be a json path under .status'));
  else out.push(...fieldPathErrors(status, child(path, 'statusReplicasPath')));
  const sel = asString(scale.labelSelectorPath);
  if (sel && !sel.startsWith('.spec.') && !sel.startsWith('.status.'))
    out.push(fieldErrors.invalid(child(path, 'labelSelectorPath'), sel, 'should be a json path under either .spec or .status'));
  return out;
}

function validateVersion(v: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const name = asString(v.name) ?? '';
  const nameErrs = isDNS1035Label(name);
  if (nameErrs.length > 0) out.push(fieldErrors.invalid(child(path, 'name'), name, nameErrs.join(',')));
  const schema = asRecord(v.schema);
  if (!schema || !isRecord(schema.openAPIV3Schema)) out.push(fieldErrors.required(child(path, 'schema', 'openAPIV3Schema'), 'schemas are required'));
  if (v.deprecationWarning !== undefined && v.deprecated !== true)
    out.push(fieldErrors.invalid(child(path, 'deprecationWarning'), v.deprecationWarning, 'can only be set for deprecated versions'));
  const subs = asRecord(v.subresources);
  const scale = subs ? asRecord(subs.scale) : undefined;
  if (scale) out.push(...validateScale(scale, child(path, 'subresources', 'scale')));
  (asArray(v.additionalPrinterColumns) ?? []).forEach((c, j) => {
    if (isRecord(c)) out.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), j)));
  });
  const seen = new Set<string>();
  (asArray(v.selectableFields) ?? []).forEach((f, j) => {
    const p = child(index(child(path, 'selectableFields'), j), 'jsonPath');
    const jp = isRecord(f) ? asString(f.jsonPath) : undefined;
    if (!jp) out.push(fieldErrors.required(p));
    else if (seen.has(jp)) out.push(fieldErrors.duplicate(p, jp));
    else seen.add(jp);
  });
  return out;
}

const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/**
 * spec.conversion as validateCustomResourceConversion checks it, with the paths of the internal type
 * (webhookClientConfig, conversionReviewVersions directly under spec.conversion).
 */
function validateConversion(conv: Record<string, unknown>, strategy: string | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const webhook = asRecord(conv.webhook);
  const cc = webhook?.clientConfig;
  const versions = webhook ? asArray(webhook.conversionReviewVersions) : undefined;
  if (strategy !== 'Webhook') {
    if (isRecord(cc)) out.push(fieldErrors.forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if (versions && versions.length > 0) out.push(fieldErrors.forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
    return out;
  }
  if (!isRecord(cc)) out.push(fieldErrors.required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
  else out.push(...validateClientConfig(cc, 'spec.conversion.webhookClientConfig'));
  const path = 'spec.conversion.conversionReviewVersions';
  const list = (versions ?? []).map(String);
  if (list.length === 0) return [...out, fieldErrors.required(path)];
  if (list.length > 10) out.push(fieldErrors.tooMany(path, list.length, 10));
  const seen = new Set<string>();
  list.forEach((v, i) => {
    for (const m of isDNS1035Label(v)) out.push(fieldErrors.invalid(index(path, i), v, m));
    if (seen.has(v)) out.push(fieldErrors.duplicate(index(path, i), v));
    seen.add(v);
  });
  if (!list.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v))) out.push(fieldErrors.invalid(path, new GoValue(`[]string{${list.map((v) => JSON.stringify(v)).join(', ')}}`), `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  return out;
}

function validateSpec(spec: Record<string, unknown>): StatusCause[] {
  const out: StatusCause[] = [];
  const group = asString(spec.group) ?? '';
  if (group === '') out.push(fieldErrors.required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length > 0) out.push(fieldErrors.invalid('spec.group', group, errs.join(',')));
    else if (group.split('.').length < 2) out.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = asString(spec.scope) ?? '';
  if (scope === '') out.push(fieldErrors.required('spec.scope'));
  else if (!SCOPES.includes(scope)) out.push(fieldErrors.notSupported('spec.scope', scope, SCOPES));

  const versions = (asArray(spec.versions) ?? []).map((v) => asRecord(v) ?? {});
  if (versions.length === 0) out.push(fieldErrors.invalid('spec.versions', versionsValue, 'must have exactly one version marked as storage version'));
  const names = new Set<string>();
  let unique = true;
  let storage = 0;
  let served = 0;
  versions.forEach((v, i) => {
    const n = asString(v.name) ?? '';
    if (names.has(n)) unique = false;
    names.add(n);
    if (v.storage === true) storage++;
    if (v.served === true) served++;
    out.push(...validateVersion(v, index('spec.versions', i)));
  });
  out.push(...validateSchemaRules(versions));
  if (!unique) out.push(fieldErrors.invalid('spec.versions', versionsValue, 'must contain unique version names'));
  if (versions.length > 0 && storage !== 1) out.push(fieldErrors.invalid('spec.versions', versionsValue, 'must have exactly one version marked as storage version'));
  if (versions.length > 0 && served === 0) out.push(fieldErrors.invalid('spec.versions', versionsValue, 'must have at least one served version'));

  const n = asRecord(spec.names) ?? {};
  for (const f of ['plural', 'singular', 'kind', 'listKind']) if (!asString(n[f])) out.push(fieldErrors.required(child('spec.names', f)));
  out.push(...validateNames(n, 'spec.names'));

  const conv = asRecord(spec.conversion);
  const strategy = conv ? asString(conv.strategy) : undefined;
  if (conv && !strategy) out.push(fieldErrors.required('spec.conversion.strategy'));
  else if (strategy && !CONVERSION_STRATEGIES.includes(strategy)) out.push(fieldErrors.notSupported('spec.conversion.strategy', strategy, CONVERSION_STRATEGIES));
  else if (conv) out.push(...validateConversion(conv, strategy));
  if (spec.preserveUnknownFields === true) out.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  return out;
}

function validateStoredVersions(crd: KubeObject): StatusCause[] {
  const status = asRecord(crd.status) ?? {};
  const stored = (asArray(status.storedVersions) ?? []).map(String);
  const path = 'status.storedVersions';
  if (stored.length === 0) return [fieldErrors.invalid(path, new GoValue('[]string(nil)'), 'must have at least one stored version')];
  const out: StatusCause[] = [];
  const versions = (asArray(asRecord(crd.spec)?.versions) ?? []).map((v) => asRecord(v) ?? {});
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const name = asString(v.name) ?? '';
    if (v.storage === true && !left.has(name)) out.push(fieldErrors.invalid(path, name, `must have the storage version ${name}`));
    left.delete(name);
  }
  for (const [v, i] of left) out.push(fieldErrors.invalid(index(path, i), v, 'must appear in spec.versions'));
  return out;
}

function validateStatusNames(crd: KubeObject): StatusCause[] {
  const status = asRecord(crd.status);
  const accepted = status ? asRecord(status.acceptedNames) : undefined;
  return accepted ? validateNames(accepted, 'status.acceptedNames') : [];
}

/** The name a CRD must have: spec.names.plural + "." + spec.group. */
export function crdName(crd: KubeObject): string {
  const spec = asRecord(crd.spec) ?? {};
  return `${asString(asRecord(spec.names)?.plural) ?? ''}.${asString(spec.group) ?? ''}`;
}

export function validateCustomResourceDefinition(crd: KubeObject): StatusCause[] {
  const required = crdName(crd);
  const nameFn = (name: string) => [...isDNS1123Subdomain(name), ...(name !== required ? ['must be spec.names.plural+"."+spec.group'] : [])];
  return [...validateObjectMeta(crd.metadata, { namespaced: false, nameFn }), ...validateSpec(asRecord(crd.spec) ?? {}), ...validateStatusNames(crd), ...validateStoredVersions(crd)];
}

export function isEstablished(crd: KubeObject): boolean {
  const conds = asArray(asRecord(crd.status)?.conditions) ?? [];
  return conds.some((c) => isRecord(c) && c.type === 'Established' && c.status === 'True');
}

export function validateCustomResourceDefinitionUpdate(crd: KubeObject, old: KubeObject): StatusCause[] {
  const out = [...validateObjectMetaUpdate(crd.metadata, old.metadata, { namespaced: false }), ...validateSpec(asRecord(crd.spec) ?? {}), ...validateStatusNames(crd), ...validateStoredVersions(crd)];
  const spec = asRecord(crd.spec) ?? {};
  const oldSpec = asRecord(old.spec) ?? {};
  const names = asRecord(spec.names) ?? {};
  const oldNames = asRecord(oldSpec.names) ?? {};
  if (isEstablished(old)) {
    if (spec.scope !== oldSpec.scope) out.push(fieldErrors.immutable('spec.scope', spec.scope));
    if (names.kind !== oldNames.kind) out.push(fieldErrors.immutable('spec.names.kind', names.kind));
  }
  if (spec.group !== oldSpec.group) out.push(fieldErrors.immutable('spec.group', spec.group));
  if (names.plural !== oldNames.plural) out.push(fieldErrors.immutable('spec.names.plural', names.plural));
  return out;
}

export function validateCustomResourceDefinitionStatus(crd: KubeObject, old: KubeObject): StatusCause[] {
  return [...validateObjectMetaUpdate(crd.metadata, old.metadata, { namespaced: false }), ...validateStatusNames(crd)];
}

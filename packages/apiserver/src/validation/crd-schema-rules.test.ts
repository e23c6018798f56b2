// CRD schemas are checked as apiextensions validation checks them: structural rules (type everywhere, object
// root, root metadata, embedded resources, int-or-string, value validations), the OpenAPI-level rules, defaults
// that validate and are pruned, the status-subresource root, and each cause at Kubernetes' path with its text.
import { describe, expect, it } from 'vitest';
import type { StatusCause } from '@kemu/api';
import { validateSchemaRules } from './crd-schema-rules.ts';

type Obj = Record<string, unknown>;
const P = 'spec.validation.openAPIV3Schema';
const check = (openAPIV3Schema: Obj, extra: Obj = {}): string[] =>
  validateSchemaRules([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema }, ...extra }]).map((c: StatusCause) => `${c.field}: ${c.message}`);
const root = (properties: Obj, more: Obj = {}): Obj => ({ type: 'object', properties, ...more });

describe('CRD schema rules', () => {
  it('accept a structural schema with int-or-string, preserved fields, embedded resources, list maps and valid defaults', () => {
    expect(
      check(
        root({
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 } } },
          spec: {
            type: 'object',
            properties: {
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
              extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
              replicas: { type: 'integer', default: 1, minimum: 0 },
              labels: { type: 'object', additionalProperties: { type: 'string' } },
              ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
              mode: { type: 'string', oneOf: [{ pattern: '^a' }, { pattern: '^b' }] },
            },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('need a type on every node, an object root and items for arrays', () => {
    expect(check({ properties: { spec: { properties: { a: { items: {} } } } } })).toEqual([
      `${P}.properties[spec].properties[a].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${P}.type: Required value: must not be empty at the root`,
    ]);
    expect(check({ type: 'string' })).toEqual([`${P}.type: Invalid value: "string": must be object at the root`]);
    expect(check(root({ list: { type: 'array' } }))).toEqual([`${P}.properties[list].items: Required value: must be specified`]);
  });

  it('restrict root metadata to name and generateName, and kind and apiVersion to strings', () => {
    expect(check(root({ metadata: { type: 'object', properties: { labels: { type: 'object' } } }, kind: { type: 'integer' } }))).toEqual([
      `${P}.properties[kind].type: Invalid value: "integer": must be string`,
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
  });

  it('hold x-kubernetes-embedded-resource and int-or-string to their rules', () => {
    expect(check(root({ e: { 'x-kubernetes-embedded-resource': true }, f: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata: { type: 'string' } } } }))).toEqual([
      `${P}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      `${P}.properties[f].properties[metadata].type: Invalid value: "string": must be object`,
    ]);
    expect(check(root({ p: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }))).toEqual([
      `${P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ]);
  });

  it('allow only value restrictions in allOf, anyOf, oneOf and not, on fields the structure specifies', () => {
    expect(
      check(root({ a: { type: 'string', anyOf: [{ type: 'string', description: 'd', nullable: true }], not: { default: 'x', 'x-kubernetes-preserve-unknown-fields': true } } }, { allOf: [{ properties: { b: { maxLength: 1 } } }] })),
    ).toEqual([
      `${P}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
      `${P}.properties[b]: Required value: because it is defined in ${P}.allOf[0].properties[b]`,
    ]);
  });

  it('apply the OpenAPI rules: uniqueItems, properties with additionalProperties, preserve false, unsupported keywords', () => {
    expect(
      check(
        root({
          l: { type: 'array', uniqueItems: true, items: { type: 'string' } },
          m: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: { type: 'string' } },
          n: { type: 'null' },
          r: { type: 'string', $ref: '#/x' },
        }),
      ),
    ).toEqual([
      `${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${P}.properties[n].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[n].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      `${P}.properties[r].$ref: Forbidden: $ref is not supported`,
    ]);
    expect(check(root({ p: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }))).toEqual([
      `${P}.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
  });

  it('check defaults: not in top-level metadata, valid against their schema, without unknown fields', () => {
    expect(check(root({ metadata: { type: 'object', default: {} } }))).toEqual([`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`]);
    expect(check(root({ spec: { type: 'object', properties: { n: { type: 'integer', default: 'x' }, o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'y', b: 1 } } } } }))).toEqual([
      `${P}.properties[spec].properties[n].default: Invalid value: "string": in body must be of type integer: "string"`,
      `${P}.properties[spec].properties[o].default: Invalid value: map[string]interface {}{"a":"y", "b":1}: must not have unknown fields`,
    ]);
  });

  it('restrict the root of a schema with a status subresource, and a nullable root', () => {
    expect(check(root({ status: { type: 'object' } }, { minProperties: 1 }), { subresources: { status: {} } })).toEqual([
      `${P}: Invalid value: apiextensions.JSONSchemaProps{…}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
    ]);
    expect(check(root({}, { nullable: true }))).toEqual([`${P}.nullable: Forbidden: nullable cannot be true at the root`]);
  });

  it('name each version when the versions have different schemas, and skip rule compilation under schema errors', () => {
    const bad = root({ s: { type: 'string', uniqueItems: true, 'x-kubernetes-validations': [{ rule: 'self.' }] } });
    const causes = validateSchemaRules([
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: root({}) } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: bad } },
    ]).map((c) => c.field);
    expect(causes).toEqual(['spec.versions[1].schema.openAPIV3Schema.properties[s].uniqueItems']);
  });
});

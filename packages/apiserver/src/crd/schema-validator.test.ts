// The schema checks and their Kubernetes messages, one keyword at a time.
import { describe, expect, it } from 'vitest';
import { validateAgainstSchema } from './schema-validator.ts';

const msgs = (obj: unknown, schema: Record<string, unknown>) => validateAgainstSchema(obj, schema).map((c) => `${c.field}: ${c.message}`);
const spec = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: { spec: { type: 'object', properties: props, ...extra } } });

describe('custom resource schema validation', () => {
  it('pattern, bounds, lengths and item counts', () => {
    const s = spec({
      cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
      replicas: { type: 'integer', minimum: 1, maximum: 10 },
      name: { type: 'string', minLength: 2, maxLength: 3 },
      tags: { type: 'array', maxItems: 1, items: { type: 'string' } },
    });
    expect(msgs({ spec: { cronSpec: '* * * *', replicas: 15, name: 'abcd', tags: ['a', 1] } }, s)).toEqual([
      "spec.cronSpec: Invalid value: \"* * * *\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
      'spec.name: Too long: must have at most 3 bytes',
      'spec.tags: Too many: 2: must have at most 1 items',
      'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"',
    ]);
    expect(msgs({ spec: { replicas: 0, name: 'a' } }, s)).toEqual([
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
    ]);
  });

  it('enum, required, nullable, int-or-string, formats', () => {
    const s = spec(
      {
        mode: { type: 'string', enum: ['a', 'b'] },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        other: { type: 'string' },
        when: { type: 'string', format: 'date-time' },
      },
      { required: ['mode'] },
    );
    expect(msgs({ spec: { port: 80, note: null } }, s)).toEqual(['spec.mode: Required value']);
    expect(msgs({ spec: { mode: 'c', port: true, other: null, when: 'yesterday' } }, s)).toEqual([
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer or string: "boolean"',
      'spec.other: Invalid value: "null": spec.other in body must be of type string: "null"',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
  });

  it('embedded resources need apiVersion and kind; maps check their values', () => {
    const s = spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, limits: { type: 'object', additionalProperties: { type: 'integer' } } });
    expect(msgs({ spec: { template: { metadata: {} }, limits: { a: 1, b: 'x' } } }, s)).toEqual([
      'spec.template.apiVersion: Required value: must not be empty',
      'spec.template.kind: Required value: must not be empty',
      'spec.limits[b]: Invalid value: "string": spec.limits[b] in body must be of type integer: "string"',
    ]);
  });
});

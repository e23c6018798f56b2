// The JSON value of a protobuf message whose Go type marshals to one value (schema Format): Time and
// MicroTime as RFC 3339, Quantity as its string, IntOrString as number or string, FieldsV1 as its JSON, and
// a []string-typed struct (ExtraValue) as the list.
import { formatTime } from '@kemu/api';
import type { Format } from '../schema/types.ts';

type Decoded = Record<string, unknown>;

/** seconds + nanos as RFC 3339; the zero Time is omitted (Go writes null, which reads back as absent). */
function rfc3339(d: Decoded, micro: boolean): string | undefined {
  const seconds = typeof d.seconds === 'number' ? d.seconds : 0;
  const nanos = typeof d.nanos === 'number' ? d.nanos : 0;
  if (seconds === 0 && nanos === 0) return undefined;
  const base = formatTime(seconds * 1000);
  if (Number.isNaN(Date.parse(base))) return undefined;
  if (!micro) return base;
  return base.replace(/Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`);
}

function fieldsV1(d: Decoded): unknown {
  if (typeof d.raw !== 'string' || d.raw === '') return {};
  try {
    return JSON.parse(Buffer.from(d.raw, 'base64').toString('utf8')) as unknown;
  } catch {
    return {};
  }
}

function anyJSON(d: Decoded): unknown {
  if (typeof d.raw === 'string') {
    try {
      return JSON.parse(Buffer.from(d.raw, 'base64').toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }
  if (d.schema !== undefined) return d.schema;
  if (Array.isArray(d.jSONSchemas)) return d.jSONSchemas;
  if (Array.isArray(d.property)) return d.property;
  if (typeof d.allows === 'boolean') return d.allows;
  return undefined;
}

const TO_JSON: Record<Format, (d: Decoded) => unknown> = {
  'date-time': (d) => rfc3339(d, false),
  'micro-time': (d) => rfc3339(d, true),
  // resource.Quantity {1 string} is its canonical string.
  quantity: (d) => (typeof d.string === 'string' && d.string !== '' ? d.string : '0'),
  // intstr.IntOrString {1 type, 2 intVal, 3 strVal}: type 0 is the int, 1 the string.
  'int-or-string': (d) => (d.type === 1 ? (typeof d.strVal === 'string' ? d.strVal : '') : typeof d.intVal === 'number' ? d.intVal : 0),
  // FieldsV1 {1 Raw} holds the JSON of a managedFields set.
  'fields-v1': fieldsV1,
  // ExtraValue {1 items} is a Go []string.
  'string-list': (d) => (Array.isArray(d.items) ? d.items : []),
  // apiextensions' JSON {1 raw} and the schema-or-X unions: whichever member is set.
  json: anyJSON,
};

/** The JSON of a decoded special-type message; undefined omits the field. */
export function formatToJSON(format: Format, decoded: Decoded): unknown {
  return TO_JSON[format](decoded);
}

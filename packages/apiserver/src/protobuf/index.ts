// Reads `application/vnd.kubernetes.protobuf` request bodies (kubectl >= 1.32's typed clients) into the
// same JSON object a JSON client would have sent. Guarantees: never throws anything but a StatusError —
// malformed bytes are a 400 BadRequest, a kind without a field table (or an encoded payload) a 415 naming it.
import { errors, StatusError } from '@kemu/api';
import { decodeMessage } from './decode-message.ts';
import { KINDS, schemaOf, type Struct } from '../schema/index.ts';
import { Reader, WIRE, WireError } from './wire.ts';

/** "apiVersion/Kind" of every kind a protobuf body may carry. */
export function supportedProtobufKinds(): string[] {
  return KINDS.map((k) => `${k.group === '' ? k.version : `${k.group}/${k.version}`}/${k.kind}`);
}

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** "k8s\0": every Kubernetes protobuf object starts with it. */
const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
const TypeMeta: Struct = { name: '', description: '', fields: { 1: { name: 'apiVersion', type: 'string', description: '' }, 2: { name: 'kind', type: 'string', description: '' } } };

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
}

function readEnvelope(buf: Uint8Array): Envelope {
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '' };
  const r = new Reader(buf, MAGIC.length);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field >= 1 && field <= 4 && wire !== WIRE.bytes) throw new WireError(`runtime.Unknown field ${field} has wire type ${wire}, expected 2`);
    if (field === 1) {
      const [s, e] = r.bytesRange();
      const tm = decodeMessage(TypeMeta, buf, s, e) as Record<string, unknown>;
      if (typeof tm.apiVersion === 'string') env.apiVersion = tm.apiVersion;
      if (typeof tm.kind === 'string') env.kind = tm.kind;
    } else if (field === 2) env.raw = r.bytes();
    else if (field === 3) env.contentEncoding = r.string();
    else r.skip(wire);
  }
  return env;
}

export function decodeProtobufObject(raw: Buffer | Uint8Array): Record<string, unknown> {
  if (raw.length < MAGIC.length || MAGIC.some((b, i) => raw[i] !== b)) {
    throw errors.badRequest(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`);
  }
  try {
    const { apiVersion, kind, raw: payload, contentEncoding } = readEnvelope(raw);
    if (kind === '') throw errors.badRequest("Object 'Kind' is missing in the protobuf body");
    if (contentEncoding !== '') {
      throw unsupported(`the protobuf body uses content encoding "${contentEncoding}", which this server does not read`);
    }
    const schema = schemaOf(apiVersion, kind);
    if (!schema) {
      throw unsupported(
        `the protobuf body of kind "${kind}" (apiVersion "${apiVersion}") is not supported by this server; send it as application/json`,
      );
    }
    const obj = decodeMessage(schema, payload) as Record<string, unknown>;
    return { apiVersion, kind, ...obj };
  } catch (e) {
    if (e instanceof StatusError) throw e;
    if (e instanceof WireError) throw errors.badRequest(`unable to decode the protobuf request body: ${e.message}`);
    throw errors.badRequest(`unable to decode the protobuf request body: ${(e as Error).message}`);
  }
}

function unsupported(message: string): StatusError {
  return new StatusError('UnsupportedMediaType', message);
}

// Reads `application/vnd.kubernetes.protobuf` request bodies (kubectl >= 1.32's typed clients) into the
// same JSON object a JSON client would have sent. Guarantees: never throws anything but a StatusError —
// malformed bytes are a 400 BadRequest, a kind without a field table (or an encoded payload) a 415 naming it.
import { errors, StatusError } from '@kemu/api';
import { decodeMessage } from './decode-message.ts';
import { protobufSchema } from './kinds.ts';
import { message, msg, bytes, str } from './schema.ts';
import { WireError } from './wire.ts';

export { supportedProtobufKinds } from './kinds.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** "k8s\0": every Kubernetes protobuf object starts with it. */
const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
const Unknown = message({
  1: msg('typeMeta', () => message({ 1: str('apiVersion'), 2: str('kind') })),
  2: bytes('raw'),
  3: str('contentEncoding'),
  4: str('contentType'),
});

export function decodeProtobufObject(raw: Buffer | Uint8Array): Record<string, unknown> {
  if (raw.length < MAGIC.length || MAGIC.some((b, i) => raw[i] !== b)) {
    throw errors.badRequest(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`);
  }
  try {
    const envelope = decodeMessage(Unknown, raw, MAGIC.length) as Record<string, unknown>;
    const typeMeta = (envelope.typeMeta ?? {}) as Record<string, unknown>;
    const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
    const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
    if (kind === '') throw errors.badRequest('Object \'Kind\' is missing in the protobuf body');
    if (typeof envelope.contentEncoding === 'string' && envelope.contentEncoding !== '') {
      throw unsupported(`the protobuf body uses content encoding "${envelope.contentEncoding}", which this server does not read`);
    }
    const schema = protobufSchema(apiVersion, kind);
    if (!schema) {
      throw unsupported(
        `the protobuf body of kind "${kind}" (apiVersion "${apiVersion}") is not supported by this server; send it as application/json`,
      );
    }
    const payload = typeof envelope.raw === 'string' ? Buffer.from(envelope.raw, 'base64') : Buffer.alloc(0);
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

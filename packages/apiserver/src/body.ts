// Request body decoding by Content-Type: JSON and its patch variants, YAML, and apply-patch+yaml
// (kubectl sends JSON there, which is YAML too), and protobuf objects from kubectl >= 1.32's typed clients.
// Anything malformed is a 400 Status; unknown media types are a 415.
import { errors, StatusError } from '@kemu/api';
import { parse as parseYaml } from 'yaml';
import { jsonTooDeep, kemuTooDeep, MAX_NESTING, yamlNestingBound } from './nesting.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf/index.ts';

export const JSON_TYPES = [
  'application/json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
] as const;
export const APPLY_PATCH = 'application/apply-patch+yaml';

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** undefined for an empty body. */
export function decodeBody(contentType: string | undefined, raw: Buffer | undefined): unknown {
  const value = decodeBodyValue(contentType, raw);
  const tooDeep = jsonTooDeep(value);
  if (tooDeep) throw tooDeep;
  checkPlainData(value);
  return value;
}

/**
 * Walks the decoded value without recursion: only JSON data may pass (YAML tags such as !!binary yield
 * Uint8Arrays). Its depth is already checked.
 */
function checkPlainData(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function') throw errors.badRequest(`unsupported value of type ${typeof v} in the request body`);
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (proto === Object.prototype || proto === null) {
      for (const x of Object.values(v)) stack.push(x);
    } else {
      throw errors.badRequest('the request body holds a value that is not JSON data (a YAML tag such as !!binary or !!set?)');
    }
  }
}

function decodeBodyValue(contentType: string | undefined, raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return undefined;
  const mt = mediaType(contentType);
  const text = raw.toString('utf8');
  if (mt === '' || (JSON_TYPES as readonly string[]).includes(mt)) {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      if (mt === '' && !/^\s*[[{]/.test(text)) return yamlOr400(text);
      throw errors.badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
  }
  if (mt === PROTOBUF_MEDIA_TYPE) return decodeProtobufObject(raw);
  if (mt === 'application/yaml' || mt === 'application/x-yaml' || mt === 'text/yaml' || mt === APPLY_PATCH) return yamlOr400(text);
  throw new StatusError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/merge-patch+json, application/json-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/vnd.kubernetes.protobuf (got "${mt}")`);
}

function yamlOr400(text: string): unknown {
  // The YAML parser recurses once per level: measure first, from the tokens alone.
  if (yamlNestingBound(text) > MAX_NESTING) throw kemuTooDeep('the request body');
  try {
    return parseYaml(text) as unknown;
  } catch (e) {
    throw errors.badRequest(`error converting YAML to JSON: ${(e as Error).message.split('\n')[0] ?? ''}`);
  }
}

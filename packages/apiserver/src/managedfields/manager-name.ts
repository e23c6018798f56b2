// The field manager of a write: ?fieldManager, else (not for apply) the client's name from its
// User-Agent, as Kubernetes' managerOrUserAgent ("kubectl/v1.32.0 (linux/amd64) …" → "kubectl").
import { FIELD_MANAGER_MAX_LENGTH } from '../registry/field-validation.ts';

/** prefixFromUserAgent: the text before the first "/", without unprintable characters, at most 128 bytes. */
export function prefixFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

export function managerOrUserAgent(fieldManager: string | null, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : prefixFromUserAgent(userAgent);
}

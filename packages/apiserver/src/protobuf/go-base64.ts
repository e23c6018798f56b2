// Go's base64.StdEncoding.Decode error, which encoding/json returns for a []byte field whose JSON string is no
// padded standard base64 (a Secret's data value, a CSR's spec.request): `illegal base64 data at input byte 4`.
// Newlines are skipped, as Go does; the offset counts bytes of the UTF-8 string.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALID = new Set([...ALPHABET].map((c) => c.charCodeAt(0)));
const PAD = 0x3d; // '='
const isNewline = (b: number | undefined): boolean => b === 0x0a || b === 0x0d;

const corrupt = (at: number): string => `illegal base64 data at input byte ${at}`;

/** The error of decodeQuantum at `si`, or the index the next quantum starts at (-1: the input ended). */
function quantum(src: Uint8Array, start: number): { next: number } | { error: string } {
  let si = start;
  for (let j = 0; j < 4; j++) {
    if (si === src.length) {
      if (j === 0) return { next: -1 };
      return { error: corrupt(si - j) }; // padding is required
    }
    const b = src[si] ?? 0;
    si++;
    if (VALID.has(b)) continue;
    if (isNewline(b)) {
      j--;
      continue;
    }
    if (b !== PAD || j < 2) return { error: corrupt(si - 1) };
    if (j === 2) {
      while (si < src.length && isNewline(src[si])) si++;
      if (si === src.length) return { error: corrupt(src.length) };
      if (src[si] !== PAD) return { error: corrupt(si - 1) };
      si++;
    }
    while (si < src.length && isNewline(src[si])) si++;
    if (si < src.length) return { error: corrupt(si) }; // trailing garbage after the padding
    return { next: -1 };
  }
  return { next: si };
}

/** undefined when Go decodes `s` as StdEncoding base64, else its CorruptInputError text. */
export function base64DecodeError(s: string): string | undefined {
  const src = Buffer.from(s, 'utf8');
  let si = 0;
  while (si < src.length) {
    const q = quantum(src, si);
    if ('error' in q) return q.error;
    if (q.next < 0) return undefined;
    si = q.next;
  }
  return undefined;
}

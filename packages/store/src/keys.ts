// Prefix ranges shared by the backends: a prefix P selects keys K with P <= K < prefixEnd(P).

/**
 * The smallest string greater than every string starting with `prefix`: the last code point
 * incremented. SQLite compares TEXT as UTF-8 bytes, whose order equals code point order, so the same
 * bound works for SQL range scans and JS comparisons of keys (which are ASCII in practice).
 * An empty prefix selects everything and has no upper bound (undefined).
 */
export function prefixEnd(prefix: string): string | undefined {
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    const last = cps.pop() as string;
    const cp = last.codePointAt(0) as number;
    if (cp < 0x10ffff) {
      let next = cp + 1;
      if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // skip surrogates
      return cps.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** Compare keys in SQLite's BINARY (UTF-8 byte) order, which is code point order. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return Buffer.compare(ab, bb);
}

/** Keys are non-empty and never contain NUL (list paging relies on key + '\0' being the next key). */
export function checkKey(key: string): void {
  if (typeof key !== 'string' || key === '' || key.includes('\u0000')) {
    throw new TypeError(`invalid store key ${JSON.stringify(key)}: must be a non-empty string without NUL`);
  }
}

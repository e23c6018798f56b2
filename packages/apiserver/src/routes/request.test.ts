// Query parameters read as Kubernetes' query conversion reads them.
import { describe, expect, it } from 'vitest';
import { boolParam } from './request.ts';

describe('boolParam', () => {
  // runtime.Convert_Slice_string_To_bool: only "0" and "false" (any case) are false; any other value is true.
  const cases: Array<[string, boolean | undefined]> = [
    ['', undefined],
    ['watch', true],
    ['watch=', true],
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=t', true],
    ['watch=yes', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=0', false],
    ['watch=true&watch=false', true],
  ];
  for (const [query, want] of cases) {
    it(`?${query} is ${String(want)}`, () => expect(boolParam(new URLSearchParams(query), 'watch')).toBe(want));
  }
});

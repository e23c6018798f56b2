// Go's base64.StdEncoding.Decode errors, as encoding/json returns them for []byte fields.
import { describe, expect, it } from 'vitest';
import { base64DecodeError } from './go-base64.ts';

describe('base64DecodeError', () => {
  it.each(['', 'YQ==', 'YWI=', 'YWJj', 'YWJj\nZGVm', 'YQ=\n=', 'YQ==\r\n'])('%j decodes', (s) => {
    expect(base64DecodeError(s)).toBeUndefined();
  });
  it.each([
    ['-----BEGIN', 0],
    ['YQ', 0], // Go reports where the short quantum started
    ['YQ=', 3],
    ['Y===', 1],
    ['YQ==YQ==', 4],
    ['YWJjZ', 4],
    ['YWJj ZGVm', 4],
    ['YW=j', 2],
    ['é', 0],
  ])('%j: illegal at byte %d', (s, at) => {
    expect(base64DecodeError(s)).toBe(`illegal base64 data at input byte ${at}`);
  });
});

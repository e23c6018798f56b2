import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { goFileError, goReadFileError } from './go-errors.ts';

const failure = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('did not fail');
};

describe("Go's file errors", () => {
  it('word a missing file, a directory and another error as os.ReadFile does', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'go-errors-'));
    try {
      const missing = path.join(dir, 'ca.pem');
      expect(goReadFileError(missing, failure(() => fs.readFileSync(missing)))).toBe(`open ${missing}: no such file or directory`);
      expect(goReadFileError(dir, failure(() => fs.readFileSync(dir)))).toBe(`read ${dir}: is a directory`);
      expect(goFileError('open', '/x', new Error('boom'))).toBe('open /x: boom');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

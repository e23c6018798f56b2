// Nesting limits: measured without recursion, refused before any recursive code (the YAML parser included) runs.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeBody } from './body.ts';
import { depthBeyond, MAX_NESTING, yamlNestingBound } from './nesting.ts';

const deepJSON = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** The real depth of a parsed value (recursive: only for the small test documents). */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const kids = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...kids.map(depthOf));
}

describe('depthBeyond', () => {
  it('finds the first container deeper than the limit, with Go’s character for it', () => {
    expect(depthBeyond(JSON.parse(deepJSON(3)), 3)).toBeUndefined();
    expect(depthBeyond(JSON.parse(deepJSON(4)), 3)).toEqual({ depth: 4, char: '{' });
    expect(depthBeyond([[[[]]]], 3)).toEqual({ depth: 4, char: '[' });
    expect(depthBeyond({ a: 1, b: 'x', c: null }, 1)).toBeUndefined();
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(depthBeyond(JSON.parse(deepJSON(100_000)), 10_000)).toEqual({ depth: 10_001, char: '{' });
  });
});

describe('yamlNestingBound', () => {
  const docs = [
    'a: 1\n',
    'a:\n  b:\n    c: 1\n',
    'a:\n- b:\n  - c:\n    - d\n',
    '- - - - x\n',
    'a: {b: [1, {c: [2]}]}\n',
    '? a\n: - b\n  - c\n',
    'a: |\n  text {[{[ with brackets\n        and indentation\nb: [1]\n',
    'a: "quoted {[{[ brackets"\nb: \'single [[[\'\n',
    'a:\n  # a comment {[{[\n  b: 1\n',
  ];
  for (const doc of docs) {
    it(`is at least the real depth: ${JSON.stringify(doc)}`, () => {
      expect(yamlNestingBound(doc)).toBeGreaterThanOrEqual(depthOf(parse(doc)));
    });
  }

  it('does not count brackets or indentation inside scalars', () => {
    expect(yamlNestingBound(`a: |\n${'      {[{[\n'.repeat(50)}b: '${'['.repeat(900)}'\n`)).toBeLessThan(10);
  });

  it('measures 10,000 levels of flow or 2,000 of block without overflowing', () => {
    expect(yamlNestingBound(deepJSON(10_000))).toBeGreaterThan(10_000);
    let block = '';
    for (let i = 0; i < 2_000; i++) block += `${' '.repeat(i)}a:\n`;
    expect(yamlNestingBound(block)).toBeGreaterThanOrEqual(2_000);
  });
});

describe('decodeBody depth', () => {
  const json = (levels: number) => Buffer.from(deepJSON(levels));
  it(`accepts ${MAX_NESTING} levels of JSON and YAML`, () => {
    expect(depthOf(decodeBody('application/json', json(MAX_NESTING)))).toBe(MAX_NESTING);
    expect(depthOf(decodeBody('application/yaml', json(MAX_NESTING - 1)))).toBe(MAX_NESTING - 1);
  });

  it('refuses deeper bodies with a 400 naming kemu’s limit, and Kubernetes’ words past 10,000', () => {
    expect(() => decodeBody('application/json', json(MAX_NESTING + 1))).toThrow(expect.objectContaining({ code: 400, message: expect.stringContaining(`nested more than ${MAX_NESTING} levels deep`) }));
    expect(() => decodeBody('application/merge-patch+json', json(10_001))).toThrow(
      expect.objectContaining({ code: 400, message: "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth" }),
    );
    for (const levels of [MAX_NESTING + 1, 900, 5_000, 10_001]) {
      expect(() => decodeBody('application/apply-patch+yaml', json(levels))).toThrow(expect.objectContaining({ code: 400 }));
    }
  });

  it('refuses a YAML alias chain that nests deeper than the limit, without overflowing', () => {
    const chain = Array.from({ length: 1_200 }, (_, i) => (i === 0 ? 'a0: &a0 [1]' : `a${i}: &a${i} [*a${i - 1}]`)).join('\n');
    expect(() => decodeBody('application/yaml', Buffer.from(chain))).toThrow(expect.objectContaining({ code: 400 }));
  });
});

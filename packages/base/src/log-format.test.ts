import { describe, expect, it } from 'vitest';
import { formatJson, formatText, goQuote, pidColumn, textHeader, textPair, type LogRecord } from './log-format.ts';

// 2026-12-03 06:07:11.123456 in the process's zone.
const T = new Date(2026, 11, 3, 6, 7, 11, 123).getTime() + 0.456;

function rec(over: Partial<LogRecord>): LogRecord {
  return { severity: 'I', v: 0, timeMs: T, file: 'leaderelection.ts:268', caller: 'leaderelection/leaderelection.ts:268', msg: 'm', structured: true, err: undefined, kvs: [], ...over };
}

describe('klog text', () => {
  it('writes the header as klog: severity, MMDD, time in microseconds, pid right-aligned to 7, file:line]', () => {
    expect(textHeader('I', T, pidColumn(12345), 'leaderelection.ts:268')).toBe('I1203 06:07:11.123456   12345 leaderelection.ts:268] ');
    expect(textHeader('E', T + 1000, pidColumn(1), 'x.ts:1')).toBe('E1203 06:07:12.123456       1 x.ts:1] ');
  });

  it('writes an InfoS line: quoted message, then key="value" pairs', () => {
    const line = formatText(rec({ msg: 'successfully acquired lease', kvs: [['lease', 'kube-system/kube-scheduler']] }), pidColumn(12345));
    expect(line).toBe('I1203 06:07:11.123456   12345 leaderelection.ts:268] "successfully acquired lease" lease="kube-system/kube-scheduler"\n');
  });

  it('writes an Infof line (a bare message) unquoted', () => {
    const line = formatText(rec({ msg: 'attempting to acquire leader lease kube-system/kube-scheduler...', structured: false }), pidColumn(7));
    expect(line).toBe('I1203 06:07:11.123456       7 leaderelection.ts:268] attempting to acquire leader lease kube-system/kube-scheduler...\n');
  });

  it('puts err right after the message, as klog.ErrorS does, and skips undefined values', () => {
    const line = formatText(rec({ severity: 'E', v: undefined, msg: 'failed', err: new Error('boom'), kvs: [['pod', 'default/a'], ['gone', undefined]] }), pidColumn(7));
    expect(line.slice(line.indexOf('] ') + 2)).toBe('"failed" err="boom" pod="default/a"\n');
  });

  it('formats values as klog: numbers and bools bare, nil, slices [a b], objects as JSON', () => {
    expect(textPair('n', 3)).toBe(' n=3');
    expect(textPair('ok', false)).toBe(' ok=false');
    expect(textPair('x', null)).toBe(' x=<nil>');
    expect(textPair('profiles', ['default-scheduler', 'other'])).toBe(' profiles=[default-scheduler other]');
    expect(textPair('o', { a: 1 })).toBe(' o={"a":1}');
  });

  it('writes multi-line values between =< and >, each line tab-indented', () => {
    expect(textPair('err', 'Error: x\n    at f (a.ts:1)')).toBe(' err=<\n\tError: x\n\t    at f (a.ts:1)\n >');
    expect(textPair('text', 'a\nb\n')).toBe(' text=<\n\ta\n\tb\n >');
  });

  it.each([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\there', '"tab\\there"'],
    ['\x00\x07\x1b\x7f', '"\\x00\\a\\x1b\\x7f"'],
    ['héllo 世界', '"héllo 世界"'],
    ['nb\u00a0sp', '"nb\\u00a0sp"'],
    ['\u0085', '"\\u0085"'],
    ['\ud800', '"\\ufffd"'],
    ['😀', '"😀"'],
  ])('quotes %j as Go strconv.Quote', (s, want) => {
    expect(goQuote(s)).toBe(want);
  });
});

describe('Kubernetes JSON', () => {
  it('writes ts in float milliseconds, caller, msg, v, the pairs', () => {
    const line = formatJson(rec({ msg: 'successfully acquired lease', kvs: [['lease', 'kube-system/kube-scheduler']] }));
    expect(JSON.parse(line)).toEqual({ ts: T, caller: 'leaderelection/leaderelection.ts:268', msg: 'successfully acquired lease', v: 0, lease: 'kube-system/kube-scheduler' });
    expect(line).toMatch(/^\{"ts":\d+\.\d+,"caller":"leaderelection\/leaderelection.ts:268","msg":"successfully acquired lease","v":0,"lease":"kube-system\/kube-scheduler"\}\n$/);
  });

  it('leaves v out of error lines and puts err last, as zapr does', () => {
    const line = formatJson(rec({ severity: 'E', v: undefined, msg: 'test', err: new Error('fail'), kvs: [['count', 1]] }));
    expect(line.slice(line.indexOf('"msg"'))).toBe('"msg":"test","count":1,"err":"fail"}\n');
  });

  it('escapes what JSON needs escaped, and writes numbers, bools, null and objects as JSON', () => {
    const odd = 'say "hi"\\ \n\t\x01 \ud800 é';
    const line = formatJson(rec({ msg: odd, kvs: [['s', odd], ['n', 1.5], ['inf', Infinity], ['b', true], ['z', null], ['o', { a: [1, 'x'] }], ['e', new Error('bad')]] }));
    expect(JSON.parse(line)).toMatchObject({ msg: odd, s: odd, n: 1.5, inf: null, b: true, z: null, o: { a: [1, 'x'] }, e: 'bad' });
  });

  it('ends a bare (Infof) message with a newline, as klog hands it to the JSON logger', () => {
    expect(JSON.parse(formatJson(rec({ msg: 'test 1', structured: false, v: 2 })))).toMatchObject({ msg: 'test 1\n', v: 2 });
  });
});

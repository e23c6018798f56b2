import { describe, expect, it } from 'vitest';
import { StatusError } from './status.ts';
import { labelsMatch, parseLabelSelector } from './label-selector.ts';
import { selectorToString } from './selector.ts';

const labels = { app: 'web', tier: 'frontend', n: '5' };

describe('parseLabelSelector', () => {
  it.each([
    ['', true, ''],
    ['app=web', true, 'app=web'],
    ['app==web', true, 'app==web'],
    ['app!=web', false, 'app!=web'],
    ['app!=db', true, 'app!=db'],
    ['missing!=x', true, 'missing!=x'],
    ['tier in (frontend, backend)', true, 'tier in (backend,frontend)'],
    ['tier in (backend)', false, 'tier in (backend)'],
    ['tier notin (backend)', true, 'tier notin (backend)'],
    ['env notin (prod)', true, 'env notin (prod)'],
    ['app', true, 'app'],
    ['!app', false, '!app'],
    ['!env', true, '!env'],
    ['app=web,tier=frontend', true, 'app=web,tier=frontend'],
    ['tier=frontend,app=web', true, 'app=web,tier=frontend'],
    ['app=web,tier=backend', false, 'app=web,tier=backend'],
    ['app=', false, 'app='],
    ['n>4', true, 'n>4'],
    ['n<4', false, 'n<4'],
    ['example.com/key=v', false, 'example.com/key=v'],
    ['x in (in)', false, 'x in (in)'],
    ['  app = web  ', true, 'app=web'],
  ])('%j', (sel, want, str) => {
    const p = parseLabelSelector(sel);
    expect(labelsMatch(p, labels)).toBe(want);
    expect(selectorToString(p)).toBe(str);
  });

  it.each([
    ['app=web,', "found '', expected: identifier after ','"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['app web', "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"],
    ['app in web', "unable to parse requirement: found 'web' expected: '('"],
    ['app in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['app=a@b', 'unable to parse requirement: values[0][app]: Invalid value: "a@b": a valid label must be an empty string'],
    ['-bad=x', 'unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric'],
    ['n>x', "for 'Gt', 'Lt' operators, the value must be an integer"],
  ])('%j → 400 %s', (sel, msg) => {
    let err: unknown;
    try {
      parseLabelSelector(sel);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(400);
    expect((err as StatusError).message).toContain(msg);
  });
});

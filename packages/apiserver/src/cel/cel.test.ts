import { describe, expect, it } from 'vitest';

import { compile, lazy, type Program } from './index.ts';

const VARS = { object: 'dyn', oldObject: 'dyn', params: 'dyn', variables: 'map' };

function program(expr: string, variables: Record<string, string> = VARS): Program {
  const r = compile(expr, { variables });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('; '));
  return r.program;
}
const run = (expr: string, activation: Record<string, unknown> = {}): unknown => {
  const r = program(expr).eval(activation);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('CEL', () => {
  const deploy = { spec: { replicas: 6, template: { spec: { containers: [{ name: 'a', image: 'nginx:1.25' }] } } }, metadata: { labels: { env: 'test' } } };

  it('evaluates JSON objects: integers are CEL ints, has() and size()', () => {
    expect(run('object.spec.replicas <= 5', { object: deploy })).toBe(false);
    expect(run('object.spec.replicas + 1', { object: deploy })).toBe(7);
    expect(run('has(object.spec.replicas) && !has(object.spec.paused)', { object: deploy })).toBe(true);
    expect(run('size(object.spec.template.spec.containers)', { object: deploy })).toBe(1);
    expect(run("object.spec.template.spec.containers.all(c, c.image.matches('^nginx:'))", { object: deploy })).toBe(true);
    expect(run("'env' in object.metadata.labels", { object: deploy })).toBe(true);
  });

  it('has Kubernetes extension functions', () => {
    expect(run("'AbC'.lowerAscii() + 'x'.upperAscii()")).toBe('abcX');
    expect(run("'a,b,c'.split(',')")).toEqual(['a', 'b', 'c']);
    expect(run("['a', 'b'].join('-')")).toBe('a-b');
    expect(run('[1, 2, 3].isSorted() && ![2, 1].isSorted()')).toBe(true);
    expect(run('[1, 2, 3].sum()')).toBe(6);
    expect(run('[3, 1, 2].min() + [3, 1, 2].max()')).toBe(4);
    expect(run("'hello'.charAt(1) + 'abc'.reverse()")).toBe('ecba');
    expect(run("'a-b-c'.replace('-', '+', 1)")).toBe('a+b-c');
    expect(run("'abc123def456'.findAll('[0-9]+')")).toEqual(['123', '456']);
    expect(run("quantity('1Gi').isGreaterThan(quantity('500Mi')) && quantity('2').asInteger() == 2")).toBe(true);
    expect(run("isQuantity('1Gi') && !isQuantity('1 Gi')")).toBe(true);
  });

  it('reports compile errors: syntax, unknown variables, types', () => {
    const bad = (e: string) => compile(e, { variables: VARS });
    expect(bad('object.spec.replicas <=').ok).toBe(false);
    const unknown = bad('foo == 1');
    expect(unknown.ok || unknown.errors[0]!.message).toBe('Unknown variable: foo');
    expect(bad("1 + 'a'").ok).toBe(false);
    expect(program('object.spec.replicas > 1').outputType).toBe('bool');
  });

  it('returns runtime errors instead of throwing', () => {
    const r = program('object.spec.missing > 1').eval({ object: deploy });
    expect(r.ok).toBe(false);
  });

  it('evaluates lazy variables once, on first use', () => {
    let calls = 0;
    const variables = {
      big: lazy(() => {
        calls++;
        return 10;
      }),
      unused: lazy(() => {
        throw new Error('never read');
      }),
    };
    expect(run('variables.big > 5 && variables.big < 20', { variables })).toBe(true);
    expect(calls).toBe(1);
  });

  it('bounds a runaway expression by cost', () => {
    const list = Array.from({ length: 200 }, (_, i) => i);
    const p = program('object.l.all(a, object.l.all(b, object.l.all(c, a + b + c >= 0)))');
    const t0 = performance.now();
    const r = p.eval({ object: { l: list } });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r).toMatchObject({ ok: false, costExceeded: true, error: 'operation cancelled: actual cost limit exceeded' });
    expect(p.eval({ object: { l: [1, 2] } })).toMatchObject({ ok: true, value: true });
  });
});

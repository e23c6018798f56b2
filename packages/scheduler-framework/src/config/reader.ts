// Strict decoding of untrusted YAML into typed values: unknown fields and wrong types are collected as
// errors naming the field path (strict decoding, as Kubernetes decodes component configs).
import { parseDuration } from '@kemu/base';

export type Obj = Record<string, unknown>;

export class Reader {
  readonly errors: string[] = [];

  fail(path: string, msg: string): undefined {
    this.errors.push(`${path}: ${msg}`);
    return undefined;
  }

  obj(v: unknown, path: string, known: readonly string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) return this.fail(path || '<root>', `Invalid value: must be an object`);
    for (const k of Object.keys(v)) if (!known.includes(k)) this.errors.push(`strict decoding error: unknown field "${path ? `${path}.` : ''}${k}"`);
    return v as Obj;
  }

  arr(v: unknown, path: string): unknown[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return this.fail(path, 'Invalid value: must be a list');
    return v;
  }

  str(v: unknown, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') return this.fail(path, `Invalid value: ${JSON.stringify(v)}: must be a string`);
    return v;
  }

  num(v: unknown, path: string, integer = true): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
      return this.fail(path, `Invalid value: ${JSON.stringify(v)}: must be ${integer ? 'an integer' : 'a number'}`);
    return v;
  }

  bool(v: unknown, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') return this.fail(path, `Invalid value: ${JSON.stringify(v)}: must be a boolean`);
    return v;
  }

  /** metav1.Duration ("15s"); milliseconds. */
  duration(v: unknown, path: string): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') return this.fail(path, `Invalid value: ${JSON.stringify(v)}: must be a duration string such as "15s"`);
    try {
      return parseDuration(v);
    } catch (e) {
      return this.fail(path, `Invalid value: "${v}": ${(e as Error).message}`);
    }
  }

  strList(v: unknown, path: string): string[] | undefined {
    const a = this.arr(v, path);
    if (!a) return undefined;
    const out: string[] = [];
    a.forEach((x, i) => {
      const s = this.str(x, `${path}[${i}]`);
      if (s !== undefined) out.push(s);
    });
    return out;
  }
}

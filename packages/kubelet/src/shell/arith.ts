// $(( … )) arithmetic: integers with + - * / % ** << >> & ^ |, comparisons, && || !, ?:, unary minus,
// parentheses and bare variable names, as sh evaluates them (division truncates toward zero). A class, not
// closures: it runs once per loop iteration of a learner's script.

export class ArithError extends Error {}

const TOKEN = /\s*(\d+|[A-Za-z_][A-Za-z0-9_]*|\*\*|<=|>=|==|!=|&&|\|\||<<|>>|[-+*/%()<>!~&|^?:])/y;

/** Binary operators by precedence level, loosest first (after ?:). */
const LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '>', '<=', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case '||':
      return Number(a !== 0 || b !== 0);
    case '&&':
      return Number(a !== 0 && b !== 0);
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '&':
      return a & b;
    case '==':
      return Number(a === b);
    case '!=':
      return Number(a !== b);
    case '<':
      return Number(a < b);
    case '>':
      return Number(a > b);
    case '<=':
      return Number(a <= b);
    case '>=':
      return Number(a >= b);
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      if (b === 0) throw new ArithError('divide by zero');
      return op === '/' ? Math.trunc(a / b) : a % b;
  }
}

class Evaluator {
  private i = 0;
  constructor(
    private readonly toks: string[],
    private readonly lookup: (name: string) => string | undefined,
    private readonly depth: number,
  ) {}

  run(): number {
    if (this.toks.length === 0) return 0;
    const v = this.ternary();
    if (this.i !== this.toks.length) throw new ArithError('arithmetic syntax error');
    return v;
  }

  private ternary(): number {
    const c = this.level(0);
    if (this.toks[this.i] !== '?') return c;
    this.i++;
    const a = this.ternary();
    if (this.toks[this.i++] !== ':') throw new ArithError('arithmetic syntax error');
    const b = this.ternary();
    return c ? a : b;
  }

  private level(n: number): number {
    const ops = LEVELS[n];
    if (!ops) return this.power();
    let v = this.level(n + 1);
    while (ops.includes(this.toks[this.i] ?? '')) {
      const op = this.toks[this.i++] as string;
      v = apply(op, v, this.level(n + 1));
    }
    return v;
  }

  private power(): number {
    const b = this.primary();
    if (this.toks[this.i] !== '**') return b;
    this.i++;
    return b ** this.power();
  }

  private primary(): number {
    const t = this.toks[this.i++];
    if (t === undefined) throw new ArithError('arithmetic syntax error');
    if (t === '(') {
      const v = this.ternary();
      if (this.toks[this.i++] !== ')') throw new ArithError('arithmetic syntax error');
      return v;
    }
    if (t === '-') return -this.primary();
    if (t === '+') return this.primary();
    if (t === '!') return this.primary() ? 0 : 1;
    if (t === '~') return ~this.primary();
    const c = t.charCodeAt(0);
    if (c >= 48 && c <= 57) return Number(t);
    if (/^[A-Za-z_]/.test(t)) {
      const v = (this.lookup(t) ?? '').trim();
      if (v === '') return 0;
      if (/^-?\d+$/.test(v)) return Number(v);
      if (this.depth > 8) throw new ArithError('expression recursion loop detected');
      return evaluateAt(v, this.lookup, this.depth + 1);
    }
    throw new ArithError('arithmetic syntax error');
  }
}

function evaluateAt(expr: string, lookup: (name: string) => string | undefined, depth: number): number {
  const toks: string[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = TOKEN.exec(expr))) {
    toks.push(m[1] as string);
    end = TOKEN.lastIndex;
  }
  if (expr.slice(end).trim() !== '') throw new ArithError('arithmetic syntax error');
  return new Evaluator(toks, lookup, depth).run();
}

export function evaluate(expr: string, lookup: (name: string) => string | undefined): number {
  return evaluateAt(expr, lookup, 0);
}

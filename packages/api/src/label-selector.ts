// The labelSelector query parameter: Kubernetes' label selector grammar (labels.Parse), its error messages,
// and matching through the shared requirement semantics (selector.ts); parse errors become 400 BadRequest. The
// apiserver and metrics-server both parse with it.
import { errors, type StatusError } from './status.ts';
import { selectorMatches, type LabelRequirement, type ParsedSelector, type RequirementOperator } from './selector.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';

/** A value as Kubernetes' field errors print a string (Go's %q). */
const quoted = (v: string): string => JSON.stringify(v);

type Tok =
  | 'end'
  | 'error'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'id'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

interface Item {
  tok: Tok;
  lit: string;
}

const LITERALS: Record<string, Tok> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isSpace(s[pos] ?? '')) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    const c = s[pos] ?? '';
    if (isSpecial(c)) {
      // Longest run of special symbols that still forms a known operator.
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos] ?? '')) {
        const next = buf + (s[pos] ?? '');
        const tok = LITERALS[next];
        if (tok !== undefined) {
          last = { tok, lit: next };
          buf = next;
          pos++;
        } else if (last) {
          break;
        } else {
          buf = next;
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos] ?? '') && !isSpace(s[pos] ?? '')) buf += s[pos++];
      items.push({ tok: LITERALS[buf] ?? 'id', lit: buf });
    }
  }
}

class ParseError extends Error {}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  // In value position the keywords 'in'/'notin' are plain identifiers.
  private look(values: boolean): Item {
    const it = this.items[this.pos] ?? { tok: 'end', lit: '' };
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  private next(values: boolean): Item {
    const it = this.look(values);
    this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.look(true);
      if (tok === 'end') return reqs;
      if (tok !== 'id' && tok !== '!') throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new ParseError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const t = this.next(true);
      if (t.tok === 'end') return reqs;
      if (t.tok !== ',') throw new ParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
      const t2 = this.look(true);
      if (t2.tok !== 'id' && t2.tok !== '!') throw new ParseError(`found '${t2.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let first = this.next(true);
    let negated = false;
    if (first.tok === '!') {
      negated = true;
      first = this.next(true);
    }
    if (first.tok !== 'id') throw new Error(`found '${first.lit}', expected: identifier`);
    const key = first.lit;
    checkKey(key);
    const after = this.look(true).tok;
    if (after === 'end' || after === ',') return { key, operator: negated ? '!' : 'exists', values: [] };
    const opItem = this.next(false);
    let operator: RequirementOperator;
    switch (opItem.tok) {
      case 'in':
        operator = 'in';
        break;
      case 'notin':
        operator = 'notin';
        break;
      case '=':
        operator = '=';
        break;
      case '==':
        operator = '==';
        break;
      case '!=':
        operator = '!=';
        break;
      case '>':
        operator = 'gt';
        break;
      case '<':
        operator = 'lt';
        break;
      default:
        throw new Error(`found '${opItem.lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
    const values = operator === 'in' || operator === 'notin' ? this.setValues() : this.exactValue();
    const sorted = [...new Set(values)].sort();
    if ((operator === 'gt' || operator === 'lt') && !/^[+-]?\d+$/.test(sorted[0] ?? ''))
      throw new Error(
        `values[0]: Invalid value: ${quoted(sorted[0] ?? '')}: for 'Gt', 'Lt' operators, the value must be an integer`,
      );
    sorted.forEach((v, i) => {
      const errs = isValidLabelValue(v);
      if (errs.length > 0) throw new Error(`values[${i}][${key}]: Invalid value: ${quoted(v)}: ${errs.join('; ')}`);
    });
    return { key, operator, values: sorted };
  }

  private setValues(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.look(true);
    if (tok === ')') {
      this.next(true);
      return [''];
    }
    if (tok !== 'id' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const out: string[] = [];
    for (;;) {
      const t = this.next(true);
      if (t.tok === 'id') {
        out.push(t.lit);
        const t2 = this.look(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') break;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (out.length === 0) out.push('');
        const t2 = this.look(true);
        if (t2.tok === ')') {
          out.push('');
          break;
        }
        if (t2.tok === ',') out.push('');
      } else {
        throw new Error(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
    const close = this.next(true);
    if (close.tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
    return out;
  }

  private exactValue(): string[] {
    const t = this.look(true);
    if (t.tok === 'end' || t.tok === ',') return [''];
    const v = this.next(true);
    if (v.tok === 'id') return [v.lit];
    throw new Error(`found '${v.lit}', expected: identifier`);
  }
}

function checkKey(k: string): void {
  const errs = isQualifiedName(k);
  if (errs.length > 0) throw new Error(`<nil>: Invalid value: ${quoted(k)}: ${errs.join('; ')}`);
}

/** A parsed selector that can test a label set. */
export interface LabelSelectorMatcher extends ParsedSelector {
  matches(labels: Record<string, string> | undefined): boolean;
}

/** Parses a labelSelector string; "" selects everything. Throws a 400 StatusError on bad syntax. */
export function parseLabelSelector(s: string): LabelSelectorMatcher {
  try {
    const reqs = new Parser(lex(s)).parse();
    reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const sel: ParsedSelector = { requirements: reqs };
    return { ...sel, matches: (labels) => selectorMatches(sel, labels) };
  } catch (e) {
    if (e instanceof ParseError) throw errors.badRequest(e.message) satisfies StatusError;
    throw e;
  }
}

export function labelsMatch(sel: ParsedSelector, labels: Record<string, string> | undefined): boolean {
  return selectorMatches(sel, labels);
}


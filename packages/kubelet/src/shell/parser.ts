// The emulated shell's parser: the POSIX sh subset learners write in pod specs (lists with ; & && || and
// newlines, pipelines, if/elif/else, while/until, for, { } and ( ) groups, redirections) into a small AST.
// Words keep their parts (literal, $var, $((…)), $(…)) so the interpreter expands them lazily.
// A script it cannot read throws ShellSyntaxError; the caller then falls back to command.ts' static reading.

export type WordPart =
  | { kind: 'lit'; text: string; quoted: boolean }
  | { kind: 'var'; name: string; quoted: boolean; op?: ':-' | '-' | ':=' | ':+'; arg?: Word }
  | { kind: 'arith'; expr: Word; quoted: boolean }
  | { kind: 'cmd'; script: List; quoted: boolean };

export interface Word {
  parts: WordPart[];
}

export interface Redirect {
  /** The fd redirected (1 for `>`, 2 for `2>`). */
  fd: number;
  op: '>' | '>>' | '<' | '>&';
  target: Word;
}

export type Command =
  | { kind: 'simple'; assigns: { name: string; value: Word }[]; words: Word[]; redirects: Redirect[] }
  | { kind: 'if'; clauses: { cond: List; body: List }[]; otherwise?: List; redirects: Redirect[] }
  | { kind: 'while'; until: boolean; cond: List; body: List; redirects: Redirect[] }
  | { kind: 'for'; name: string; items?: Word[]; body: List; redirects: Redirect[] }
  | { kind: 'group'; subshell: boolean; body: List; redirects: Redirect[] };

export interface Pipeline {
  negate: boolean;
  commands: Command[];
}

export interface AndOr {
  first: Pipeline;
  rest: { op: '&&' | '||'; pipeline: Pipeline }[];
}

export type List = AndOr[];

export class ShellSyntaxError extends Error {}

type Token = { kind: 'word'; word: Word; raw: string } | { kind: 'op'; op: string } | { kind: 'redir'; fd: number; op: Redirect['op'] } | { kind: 'eof' };

const OPS = ['&&', '||', ';;', ';', '&', '|', '(', ')', '\n'];
const RESERVED = new Set(['if', 'then', 'elif', 'else', 'fi', 'while', 'until', 'do', 'done', 'for', 'in', '{', '}', '!', 'case', 'esac']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Index just past the `)` closing the `(` at `open` (quotes and nesting honoured). */
function closingParen(src: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < src.length; i++) {
    const ch = src[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '\\') i++;
    else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  throw new ShellSyntaxError('unterminated $(');
}

class Lexer {
  i = 0;
  constructor(private readonly src: string) {}

  private peek(n = 0): string {
    return this.src[this.i + n] ?? '';
  }

  next(): Token {
    // Blanks, line continuations and comments.
    for (;;) {
      const ch = this.peek();
      if (ch === ' ' || ch === '\t' || ch === '\r') this.i++;
      else if (ch === '\\' && this.peek(1) === '\n') this.i += 2;
      else if (ch === '#') while (this.i < this.src.length && this.peek() !== '\n') this.i++;
      else break;
    }
    if (this.i >= this.src.length) return { kind: 'eof' };
    const redir = /^(\d?)(>>|>&|>|<)/.exec(this.src.slice(this.i, this.i + 3));
    if (redir) {
      this.i += redir[0].length;
      const op = redir[2] as Redirect['op'];
      return { kind: 'redir', fd: redir[1] ? Number(redir[1]) : op === '<' ? 0 : 1, op };
    }
    for (const op of OPS) {
      if (this.src.startsWith(op, this.i)) {
        this.i += op.length;
        return { kind: 'op', op };
      }
    }
    const start = this.i;
    return { kind: 'word', word: this.word(), raw: this.src.slice(start, this.i) };
  }

  /** One word: up to an unquoted blank or operator character. */
  private word(): Word {
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (quoted: boolean) => {
      if (lit) parts.push({ kind: 'lit', text: lit, quoted });
      lit = '';
    };
    while (this.i < this.src.length) {
      const ch = this.peek();
      if (' \t\r\n;&|()<>'.includes(ch)) break;
      if (ch === '\\') {
        flush(false);
        const next = this.peek(1);
        this.i += 2;
        if (next !== '\n') parts.push({ kind: 'lit', text: next, quoted: true });
      } else if (ch === "'") {
        flush(false);
        const end = this.src.indexOf("'", this.i + 1);
        if (end < 0) throw new ShellSyntaxError('unterminated quoted string');
        parts.push({ kind: 'lit', text: this.src.slice(this.i + 1, end), quoted: true });
        this.i = end + 1;
      } else if (ch === '"') {
        flush(false);
        this.i++;
        this.doubleQuoted(parts);
      } else if (ch === '$' || ch === '`') {
        const part = this.dollar(false);
        if (part) {
          flush(false);
          parts.push(part);
        } else {
          lit += ch;
          this.i++;
        }
      } else {
        lit += ch;
        this.i++;
      }
    }
    flush(false);
    return { parts };
  }

  private doubleQuoted(parts: WordPart[]): void {
    let lit = '';
    // An empty "" still makes a (quoted, empty) word.
    let any = false;
    const flush = () => {
      if (lit || !any) parts.push({ kind: 'lit', text: lit, quoted: true });
      lit = '';
      any = true;
    };
    for (;;) {
      if (this.i >= this.src.length) throw new ShellSyntaxError('unterminated quoted string');
      const ch = this.peek();
      if (ch === '"') {
        this.i++;
        if (lit || !any) flush();
        return;
      }
      if (ch === '\\' && '$`"\\\n'.includes(this.peek(1))) {
        if (this.peek(1) !== '\n') lit += this.peek(1);
        this.i += 2;
      } else if (ch === '$' || ch === '`') {
        const part = this.dollar(true);
        if (part) {
          if (lit) flush();
          any = true;
          parts.push(part);
        } else {
          lit += ch;
          this.i++;
        }
      } else {
        lit += ch;
        this.i++;
      }
    }
  }

  /** A $-expansion (or `…`) at this.i; undefined when the $ is literal. */
  private dollar(quoted: boolean): WordPart | undefined {
    const src = this.src;
    if (this.peek() === '`') {
      const end = src.indexOf('`', this.i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated `');
      const script = parse(src.slice(this.i + 1, end));
      this.i = end + 1;
      return { kind: 'cmd', script, quoted };
    }
    const next = this.peek(1);
    if (next === '(' && this.peek(2) === '(') {
      const end = closingParen(src, this.i + 1);
      const inner = src.slice(this.i + 3, end - 2);
      this.i = end;
      return { kind: 'arith', expr: new Lexer(inner).arithWord(), quoted };
    }
    if (next === '(') {
      const end = closingParen(src, this.i + 1);
      const script = parse(src.slice(this.i + 2, end - 1));
      this.i = end;
      return { kind: 'cmd', script, quoted };
    }
    if (next === '{') {
      const end = src.indexOf('}', this.i + 2);
      if (end < 0) throw new ShellSyntaxError('bad substitution');
      const body = src.slice(this.i + 2, end);
      this.i = end + 1;
      const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(?:(:-|-|:=|:\+)(.*))?$/s.exec(body);
      if (!m) throw new ShellSyntaxError('bad substitution');
      const part: WordPart = { kind: 'var', name: m[1] ?? '', quoted };
      if (m[2]) {
        part.op = m[2] as NonNullable<typeof part.op>;
        part.arg = new Lexer(m[3] ?? '').arithWord();
      }
      return part;
    }
    const name = NAME.exec(src.slice(this.i + 1));
    if (name) {
      this.i += 1 + name[0].length;
      return { kind: 'var', name: name[0], quoted };
    }
    if (next && '0123456789@*#?$!-'.includes(next)) {
      this.i += 2;
      return { kind: 'var', name: next, quoted };
    }
    return undefined;
  }

  /** The whole rest as one word with expansions (arithmetic and ${x:-…} texts), no splitting at blanks. */
  arithWord(): Word {
    const parts: WordPart[] = [];
    let lit = '';
    while (this.i < this.src.length) {
      const ch = this.peek();
      if (ch === '$' || ch === '`') {
        const part = this.dollar(false);
        if (part) {
          if (lit) parts.push({ kind: 'lit', text: lit, quoted: true });
          lit = '';
          parts.push(part);
          continue;
        }
      }
      if (ch === "'" || ch === '"') {
        this.i++;
        continue;
      }
      lit += ch;
      this.i++;
    }
    if (lit) parts.push({ kind: 'lit', text: lit, quoted: true });
    return { parts };
  }
}

/** The literal text of a word when it has no expansions and no quotes (reserved words, names). */
function plain(word: Word): string | undefined {
  if (word.parts.length !== 1) return word.parts.length === 0 ? '' : undefined;
  const p = word.parts[0];
  return p && p.kind === 'lit' && !p.quoted ? p.text : undefined;
}

class Parser {
  private tok: Token;
  constructor(private readonly lexer: Lexer) {
    this.tok = lexer.next();
  }

  atEnd(): boolean {
    return this.tok.kind === 'eof';
  }

  private advance(): Token {
    const t = this.tok;
    this.tok = this.lexer.next();
    return t;
  }

  private isOp(op: string): boolean {
    return this.tok.kind === 'op' && this.tok.op === op;
  }

  private isWord(text: string): boolean {
    return this.tok.kind === 'word' && plain(this.tok.word) === text;
  }

  private expectWord(text: string): void {
    if (!this.isWord(text)) throw new ShellSyntaxError(`syntax error: expected "${text}"`);
    this.advance();
  }

  private skipNewlines(): void {
    while (this.isOp('\n')) this.advance();
  }

  /** A list up to EOF, `)` or one of the stop words. */
  list(stop: readonly string[]): List {
    const out: List = [];
    for (;;) {
      while (this.isOp('\n') || this.isOp(';') || this.isOp('&')) this.advance();
      if (this.tok.kind === 'eof' || this.isOp(')')) break;
      if (this.tok.kind === 'word' && stop.includes(plain(this.tok.word) ?? '')) break;
      out.push(this.andOr());
      if (!(this.isOp('\n') || this.isOp(';') || this.isOp('&'))) {
        if (this.atEnd() || this.isOp(')')) break;
        if (this.tok.kind === 'word' && stop.includes(plain(this.tok.word) ?? '')) break;
        throw new ShellSyntaxError('syntax error: unexpected token');
      }
    }
    return out;
  }

  private andOr(): AndOr {
    const first = this.pipeline();
    const rest: AndOr['rest'] = [];
    while (this.isOp('&&') || this.isOp('||')) {
      const op = (this.advance() as { op: '&&' | '||' }).op;
      this.skipNewlines();
      rest.push({ op, pipeline: this.pipeline() });
    }
    return { first, rest };
  }

  private pipeline(): Pipeline {
    let negate = false;
    if (this.isWord('!')) {
      this.advance();
      negate = true;
    }
    const commands = [this.command()];
    while (this.isOp('|')) {
      this.advance();
      this.skipNewlines();
      commands.push(this.command());
    }
    return { negate, commands };
  }

  private command(): Command {
    let cmd: Command;
    if (this.isWord('if')) cmd = this.ifCommand();
    else if (this.isWord('while') || this.isWord('until')) cmd = this.whileCommand();
    else if (this.isWord('for')) cmd = this.forCommand();
    else if (this.isWord('{')) {
      this.advance();
      const body = this.list(['}']);
      this.expectWord('}');
      cmd = { kind: 'group', subshell: false, body, redirects: [] };
    } else if (this.isOp('(')) {
      this.advance();
      const body = this.list([]);
      if (!this.isOp(')')) throw new ShellSyntaxError('syntax error: expected ")"');
      this.advance();
      cmd = { kind: 'group', subshell: true, body, redirects: [] };
    } else if (this.tok.kind === 'word' && RESERVED.has(plain(this.tok.word) ?? '')) {
      throw new ShellSyntaxError(`syntax error: unexpected "${plain(this.tok.word)}"`);
    } else {
      return this.simple();
    }
    while (this.tok.kind === 'redir') cmd.redirects.push(this.redirect());
    return cmd;
  }

  private redirect(): Redirect {
    const t = this.advance() as { fd: number; op: Redirect['op'] };
    const target = this.advance();
    if (target.kind !== 'word') throw new ShellSyntaxError('syntax error: redirection without a target');
    return { fd: t.fd, op: t.op, target: target.word };
  }

  private simple(): Command {
    const assigns: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      if (this.tok.kind === 'redir') {
        redirects.push(this.redirect());
        continue;
      }
      if (this.tok.kind !== 'word') break;
      const t = this.tok;
      const first = t.word.parts[0];
      const m = words.length === 0 && first?.kind === 'lit' && !first.quoted ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.text) : null;
      if (m) {
        const rest = first!.kind === 'lit' ? first!.text.slice(m[0].length) : '';
        const value: Word = { parts: [...(rest ? [{ kind: 'lit' as const, text: rest, quoted: false }] : []), ...t.word.parts.slice(1)] };
        assigns.push({ name: m[1] ?? '', value });
      } else {
        words.push(t.word);
      }
      this.advance();
    }
    if (words.length === 0 && assigns.length === 0 && redirects.length === 0) throw new ShellSyntaxError('syntax error: unexpected token');
    return { kind: 'simple', assigns, words, redirects };
  }

  private ifCommand(): Command {
    const clauses: { cond: List; body: List }[] = [];
    let otherwise: List | undefined;
    this.expectWord('if');
    for (;;) {
      const cond = this.list(['then']);
      this.expectWord('then');
      const body = this.list(['elif', 'else', 'fi']);
      clauses.push({ cond, body });
      if (this.isWord('elif')) {
        this.advance();
        continue;
      }
      if (this.isWord('else')) {
        this.advance();
        otherwise = this.list(['fi']);
      }
      this.expectWord('fi');
      break;
    }
    return { kind: 'if', clauses, ...(otherwise ? { otherwise } : {}), redirects: [] };
  }

  private whileCommand(): Command {
    const until = plain((this.advance() as { word: Word }).word) === 'until';
    const cond = this.list(['do']);
    this.expectWord('do');
    const body = this.list(['done']);
    this.expectWord('done');
    return { kind: 'while', until, cond, body, redirects: [] };
  }

  private forCommand(): Command {
    this.advance();
    const nameTok = this.advance();
    const name = nameTok.kind === 'word' ? plain(nameTok.word) : undefined;
    if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ShellSyntaxError('syntax error: bad for loop variable');
    this.skipNewlines();
    let items: Word[] | undefined;
    if (this.isWord('in')) {
      this.advance();
      items = [];
      while (this.tok.kind === 'word') items.push((this.advance() as { word: Word }).word);
    }
    if (this.isOp(';') || this.isOp('\n')) this.advance();
    this.skipNewlines();
    this.expectWord('do');
    const body = this.list(['done']);
    this.expectWord('done');
    return { kind: 'for', name, ...(items ? { items } : {}), body, redirects: [] };
  }
}

/** Parses a script; throws ShellSyntaxError on what it does not read. */
export function parse(src: string): List {
  const p = new Parser(new Lexer(src));
  const list = p.list([]);
  // Anything left (a stray `)` or reserved word) is an error.
  if (!p.atEnd()) throw new ShellSyntaxError('syntax error: unexpected token');
  return list;
}

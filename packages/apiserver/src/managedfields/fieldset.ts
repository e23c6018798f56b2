// A set of field paths, as structured-merge-diff's fieldpath.Set: a tree whose edges are path elements
// serialized the FieldsV1 way ("f:name", "k:{"name":"x"}", "v:"value"", "i:0"). A node can be a member
// (the path itself is in the set) and have children. toFieldsV1/fromFieldsV1 convert to and from the
// managedFields wire form, where "." marks a node that is also a member.
import { errors } from '@kemu/api';

export type FieldsV1 = { [pathElement: string]: FieldsV1 };

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's order: field names, then keys, then values, then indices. */
export function comparePathElements(a: string, b: string): number {
  const ra = RANK[a[0] ?? ''] ?? 4;
  const rb = RANK[b[0] ?? ''] ?? 4;
  if (ra !== rb) return ra - rb;
  if (ra === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export class FieldSet {
  readonly members = new Set<string>();
  readonly children = new Map<string, FieldSet>();

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** The child set under pe, created when missing. */
  child(pe: string): FieldSet {
    let c = this.children.get(pe);
    if (!c) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  /** Attaches c under pe unless it is empty. */
  attach(pe: string, c: FieldSet): void {
    if (!c.isEmpty()) this.children.set(pe, c);
  }

  has(path: readonly string[]): boolean {
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      s = s.children.get(path[i] as string);
      if (!s) return false;
    }
    return path.length > 0 && s.members.has(path[path.length - 1] as string);
  }

  union(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of o.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      out.children.set(pe, oc ? c.union(oc) : c.copy());
    }
    for (const [pe, oc] of o.children) if (!this.children.has(pe)) out.children.set(pe, oc.copy());
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (oc) out.attach(pe, c.intersection(oc));
    }
    return out;
  }

  /** Members of this not in o (fieldpath.Set.Difference: a member of o does not remove this's children). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      out.attach(pe, oc ? c.difference(oc) : c.copy());
    }
    return out;
  }

  /** Like difference, but a member of o also removes everything below it (reset fields such as status). */
  recursiveDifference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (o.members.has(pe)) continue;
      const oc = o.children.get(pe);
      out.attach(pe, oc ? c.recursiveDifference(oc) : c.copy());
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.copy());
    return out;
  }

  equals(o: FieldSet): boolean {
    if (this.members.size !== o.members.size || this.children.size !== o.children.size) return false;
    for (const m of this.members) if (!o.members.has(m)) return false;
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (!oc || !c.equals(oc)) return false;
    }
    return true;
  }

  /** Every member path, in structured-merge-diff's order. */
  paths(): string[][] {
    const out: string[][] = [];
    const walk = (s: FieldSet, prefix: string[]): void => {
      for (const pe of sortedElements(s)) {
        if (s.members.has(pe)) out.push([...prefix, pe]);
        const c = s.children.get(pe);
        if (c) walk(c, [...prefix, pe]);
      }
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 wire form: children first, then "." when the node itself is also a member. */
  toFieldsV1(): FieldsV1 {
    const out: FieldsV1 = {};
    for (const pe of sortedElements(this)) {
      const c = this.children.get(pe);
      if (!c) {
        out[pe] = {};
        continue;
      }
      const inner = c.toFieldsV1();
      if (this.members.has(pe)) inner['.'] = {};
      out[pe] = inner;
    }
    return out;
  }

  /** Parses a FieldsV1 value; throws a 400 naming what is wrong. Unknown element kinds are dropped, as in Kubernetes. */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    readInto(s, v, 0);
    return s;
  }
}

function readInto(s: FieldSet, v: unknown, depth: number): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.badRequest('fieldsV1 must be an object');
  if (depth > 100) throw errors.badRequest('fieldsV1 is nested too deeply');
  for (const [pe, sub] of Object.entries(v as Record<string, unknown>)) {
    if (pe === '.') continue;
    const kind = pe.slice(0, 2);
    if (kind !== 'f:' && kind !== 'k:' && kind !== 'v:' && kind !== 'i:') continue;
    if (typeof sub !== 'object' || sub === null || Array.isArray(sub)) throw errors.badRequest(`fieldsV1: the value of ${JSON.stringify(pe)} must be an object`);
    const keys = Object.keys(sub);
    if (keys.length === 0 || keys.includes('.')) s.members.add(pe);
    if (keys.some((k) => k !== '.')) {
      const c = new FieldSet();
      readInto(c, sub, depth + 1);
      s.attach(pe, c);
    }
  }
}

function sortedElements(s: FieldSet): string[] {
  if (s.children.size === 0) return [...s.members].sort(comparePathElements);
  const all = new Set<string>(s.members);
  for (const pe of s.children.keys()) all.add(pe);
  return [...all].sort(comparePathElements);
}

/** The path as Kubernetes prints it in conflicts: .spec.containers[name="nginx"].image, .metadata.finalizers[="a"]. */
export function pathString(path: readonly string[]): string {
  let out = '';
  for (const pe of path) {
    const body = pe.slice(2);
    switch (pe[0]) {
      case 'f':
        out += `.${body}`;
        break;
      case 'k': {
        let fields: Record<string, unknown> = {};
        try {
          fields = JSON.parse(body) as Record<string, unknown>;
        } catch {
          // A malformed key prints as it is stored.
        }
        out += `[${Object.entries(fields).map(([k, x]) => `${k}=${valueString(x)}`).join(',')}]`;
        break;
      }
      case 'v': {
        let x: unknown = body;
        try {
          x = JSON.parse(body);
        } catch {
          // As above.
        }
        out += `[=${valueString(x)}]`;
        break;
      }
      default:
        out += `[${body}]`;
    }
  }
  return out;
}

/** value.ToString: strings quoted, everything else as JSON. */
function valueString(x: unknown): string {
  return typeof x === 'string' ? JSON.stringify(x) : JSON.stringify(x ?? null);
}

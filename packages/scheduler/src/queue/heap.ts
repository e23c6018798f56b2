// A binary heap keyed by string, with O(log n) update and delete by key.
export class KeyedHeap<T> {
  private items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (t: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }
  has(key: string): boolean {
    return this.index.has(key);
  }
  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }
  peek(): T | undefined {
    return this.items[0];
  }
  list(): readonly T[] {
    return this.items;
  }

  /** Adds or replaces (by key) and restores heap order. */
  push(t: T): void {
    const k = this.keyOf(t);
    const i = this.index.get(k);
    if (i !== undefined) {
      this.items[i] = t;
      this.fix(i);
      return;
    }
    this.items.push(t);
    this.index.set(k, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    const top = this.items[0] as T;
    this.removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const t = this.items[i] as T;
    this.removeAt(i);
    return t;
  }

  private removeAt(i: number): void {
    const last = this.items.length - 1;
    const k = this.keyOf(this.items[i] as T);
    if (i !== last) this.swap(i, last);
    this.items.pop();
    this.index.delete(k);
    if (i < this.items.length) this.fix(i);
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }
  private swap(i: number, j: number): void {
    const a = this.items[i] as T;
    const b = this.items[j] as T;
    this.items[i] = b;
    this.items[j] = a;
    this.index.set(this.keyOf(b), i);
    this.index.set(this.keyOf(a), j);
  }
  private up(i: number): boolean {
    const start = i;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i] as T, this.items[p] as T)) break;
      this.swap(i, p);
      i = p;
    }
    return i !== start;
  }
  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      let m = l;
      const r = l + 1;
      if (r < n && this.less(this.items[r] as T, this.items[l] as T)) m = r;
      if (!this.less(this.items[m] as T, this.items[i] as T)) return;
      this.swap(i, m);
      i = m;
    }
  }
}

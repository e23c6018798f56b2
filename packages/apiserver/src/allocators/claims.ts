// One claim per allocated value, as a store key created atomically: KeyExistsError means another
// apiserver replica (or another Service) holds it, so three replicas sharing one store never hand out the
// same IP or port. The value names the owner so a retried create of the same Service can reuse its claim.
import { KeyExistsError, KeyNotFoundError } from '@kemu/store';
import type { Backend } from '@kemu/store';

export interface Owner {
  namespace: string;
  name: string;
}

export type ClaimResult = 'claimed' | 'ours' | 'taken';

export class ClaimSet {
  constructor(
    private readonly backend: Backend,
    readonly prefix: string,
  ) {}

  key(value: string | number): string {
    return `${this.prefix}${value}`;
  }

  async claim(value: string | number, owner: Owner): Promise<ClaimResult> {
    try {
      await this.backend.create(this.key(value), JSON.stringify(owner));
      return 'claimed';
    } catch (e) {
      if (!(e instanceof KeyExistsError)) throw e;
      const cur = await this.backend.get(this.key(value));
      if (cur && sameOwner(cur.value, owner)) return 'ours';
      return 'taken';
    }
  }

  async isFree(value: string | number, owner: Owner): Promise<boolean> {
    const cur = await this.backend.get(this.key(value));
    return !cur || sameOwner(cur.value, owner);
  }

  async release(value: string | number): Promise<void> {
    try {
      await this.backend.delete(this.key(value));
    } catch (e) {
      if (!(e instanceof KeyNotFoundError)) throw e;
    }
  }

  /** Values currently claimed (one list of the prefix), to skip them when searching for a free one. */
  async taken(): Promise<Set<string>> {
    const out = new Set<string>();
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.backend.list(this.prefix, { limit: 1000, ...(startAfter ? { startAfter } : {}) });
      for (const kv of page.items) out.add(kv.key.slice(this.prefix.length));
      const last = page.items[page.items.length - 1];
      if (!page.more || !last) return out;
      startAfter = last.key;
    }
  }
}

function sameOwner(value: string, owner: Owner): boolean {
  try {
    const v = JSON.parse(value) as Partial<Owner>;
    return v.namespace === owner.namespace && v.name === owner.name;
  } catch {
    return false;
  }
}

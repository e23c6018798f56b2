// One claim per allocated value, as a store key created atomically: KeyExistsError means another
// apiserver replica (or another Service) holds it, so three replicas sharing one store never hand out the
// same IP or port. The value names the owning Service by uid, and every release is conditional: a
// rollback deletes only the revision it created, a Service's release only a claim that names its uid,
// so one create's cleanup can never free a value that a concurrent create of the same name now uses.
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError } from '@kemu/store';
import type { Backend } from '@kemu/store';

export interface Owner {
  namespace: string;
  name: string;
  /** The Service's metadata.uid (set before allocation). */
  uid: string;
}

/** What a claim's value records (claims written before uids were recorded have neither uid nor at). */
export interface ClaimRecord {
  namespace?: string;
  name?: string;
  uid?: string;
  /** When the claim was made (ms since the epoch). */
  at?: number;
}

export type ClaimResult = { status: 'claimed'; revision: number } | { status: 'ours' } | { status: 'taken' };

export interface ClaimSetOptions {
  /** Whether the Service a claim names still exists (with that uid): a claim whose owner is gone is a leak. */
  ownerExists(c: ClaimRecord): Promise<boolean>;
  /** A claim younger than this is never taken over, even with no owner yet (its create may be in flight). */
  leakGraceMs?: number;
  now?: () => number;
}

export function parseClaim(value: string): ClaimRecord {
  try {
    const v = JSON.parse(value) as unknown;
    if (typeof v !== 'object' || v === null) return {};
    const o = v as Record<string, unknown>;
    const out: ClaimRecord = {};
    if (typeof o.namespace === 'string') out.namespace = o.namespace;
    if (typeof o.name === 'string') out.name = o.name;
    if (typeof o.uid === 'string') out.uid = o.uid;
    if (typeof o.at === 'number') out.at = o.at;
    return out;
  } catch {
    return {};
  }
}

/** The same Service: by uid, or by namespace/name for a claim that predates uids. */
function owns(c: ClaimRecord, owner: Owner): boolean {
  if (c.uid !== undefined) return c.uid === owner.uid;
  return c.namespace === owner.namespace && c.name === owner.name;
}

export class ClaimSet {
  private readonly now: () => number;
  private readonly graceMs: number;

  constructor(
    private readonly backend: Backend,
    readonly prefix: string,
    private readonly opts: ClaimSetOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.graceMs = opts.leakGraceMs ?? 60_000;
  }

  key(value: string | number): string {
    return `${this.prefix}${value}`;
  }

  private record(owner: Owner): string {
    return JSON.stringify({ namespace: owner.namespace, name: owner.name, uid: owner.uid, at: this.now() });
  }

  async claim(value: string | number, owner: Owner): Promise<ClaimResult> {
    const key = this.key(value);
    try {
      const kv = await this.backend.create(key, this.record(owner));
      return { status: 'claimed', revision: kv.modRevision };
    } catch (e) {
      if (!(e instanceof KeyExistsError)) throw e;
    }
    const cur = await this.backend.get(key);
    if (!cur) return this.claim(value, owner); // released meanwhile: try again
    const c = parseClaim(cur.value);
    if (owns(c, owner)) return { status: 'ours' };
    if (!(await this.leaked(c))) return { status: 'taken' };
    // Take the leaked claim over, conditional on it being unchanged since we looked.
    try {
      const kv = await this.backend.update(key, this.record(owner), cur.modRevision);
      return { status: 'claimed', revision: kv.modRevision };
    } catch (e) {
      if (e instanceof RevisionMismatchError || e instanceof KeyNotFoundError) return { status: 'taken' };
      throw e;
    }
  }

  private async leaked(c: ClaimRecord): Promise<boolean> {
    if (c.at !== undefined && this.now() - c.at < this.graceMs) return false;
    return !(await this.opts.ownerExists(c));
  }

  async isFree(value: string | number, owner: Owner): Promise<boolean> {
    const cur = await this.backend.get(this.key(value));
    return !cur || owns(parseClaim(cur.value), owner);
  }

  /** Undoes a claim this request made: deletes it only if it is still the revision we wrote. */
  async releaseClaimed(value: string | number, revision: number): Promise<void> {
    await this.deleteIf(this.key(value), revision);
  }

  /** Frees a value a Service held: only while the claim still names that Service. */
  async releaseOwned(value: string | number, owner: Owner): Promise<void> {
    const key = this.key(value);
    const cur = await this.backend.get(key);
    if (!cur || !owns(parseClaim(cur.value), owner)) return;
    await this.deleteIf(key, cur.modRevision);
  }

  private async deleteIf(key: string, revision: number): Promise<void> {
    try {
      await this.backend.delete(key, revision);
    } catch (e) {
      // Gone, or rewritten by someone else (a takeover): either way not ours to delete.
      if (!(e instanceof KeyNotFoundError) && !(e instanceof RevisionMismatchError)) throw e;
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

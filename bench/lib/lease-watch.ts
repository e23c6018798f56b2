// Bench helper: follows one Lease through a watch and timestamps every version seen, so a benchmark can
// tell when the holder changed (and whether it passed through "" — a release) to within the watch's
// delivery latency, without polling. Re-lists on 410 and resumes from the last resourceVersion otherwise.
import { R, type Lease } from '@kemu/api';
import type { RestClient } from '@kemu/client';

export interface LeaseSeen {
  /** performance.now() when this version arrived. */
  at: number;
  /** Full holder identity ("<hostname>_<uuid>"), "" when released, undefined when the Lease is absent. */
  holder: string | undefined;
  renewTime: string;
  transitions: number;
}

/** "<hostname>" part of a holder identity. */
export const holderHost = (id: string | undefined): string => (id ?? '').split('_')[0] ?? '';

export class LeaseWatch {
  readonly seen: LeaseSeen[] = [];
  private readonly ctrl = new AbortController();
  private readonly waiters = new Set<() => void>();
  readonly done: Promise<void>;

  constructor(
    private readonly client: RestClient,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.done = this.loop();
  }

  get current(): LeaseSeen | undefined {
    return this.seen[this.seen.length - 1];
  }

  /** Versions seen at or after time `since` (performance.now()). */
  since(since: number): LeaseSeen[] {
    return this.seen.filter((s) => s.at >= since);
  }

  /** Resolves with the first version (seen at or after `since`) that matches, or rejects after timeoutMs. */
  until(what: string, match: (s: LeaseSeen) => boolean, since: number, timeoutMs: number): Promise<LeaseSeen> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.since(since).find(match);
        if (!hit) return false;
        cleanup();
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (Lease ${this.namespace}/${this.name} now ${JSON.stringify(this.current)})`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  stop(): void {
    this.ctrl.abort();
  }

  private record(l: Lease | undefined): void {
    const s = l?.spec;
    this.seen.push({ at: performance.now(), holder: l ? (s?.holderIdentity ?? '') : undefined, renewTime: s?.renewTime ?? '', transitions: s?.leaseTransitions ?? 0 });
    for (const w of [...this.waiters]) w();
  }

  private async loop(): Promise<void> {
    const fieldSelector = `metadata.name=${this.name}`;
    let rv = '';
    while (!this.ctrl.signal.aborted) {
      try {
        if (!rv) {
          const list = await this.client.list<Lease>(R.leases, this.namespace, { fieldSelector });
          this.record(list.items[0]);
          rv = list.metadata.resourceVersion ?? '';
        }
        for await (const ev of this.client.watch<Lease>(R.leases, this.namespace, { fieldSelector, resourceVersion: rv, allowWatchBookmarks: true, signal: this.ctrl.signal })) {
          rv = ev.object.metadata.resourceVersion ?? rv;
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.record(ev.object);
          else if (ev.type === 'DELETED') this.record(undefined);
        }
      } catch (e) {
        if (this.ctrl.signal.aborted) return;
        if ((e as { code?: unknown }).code === 410) rv = '';
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}

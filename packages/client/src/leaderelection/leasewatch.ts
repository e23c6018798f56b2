// Follows one Lease through a watch (fieldSelector metadata.name=<name>) so a follower sees each renewal,
// release or deletion the moment it is written instead of at its next poll. List first (for the object and
// a resourceVersion), then watch from there; resume from the last version after a dropped or ended stream,
// re-list after 410; stop for good on 403. The follower's poll stays the source of truth when the watch is down: this only adds
// observations, it never decides anything.
import { R, type Lease } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import type { RestClient } from '../rest.ts';


export interface LeaseFollowerOptions {
  clock: Clock;
  logger: Logger;
  /** First back-off after a failed list/watch, doubling up to maxBackoffMs (jittered). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export class LeaseFollower {
  private stream: AbortController | undefined;
  private failures = 0;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly client: RestClient,
    private readonly namespace: string,
    private readonly name: string,
    private readonly onVersion: (lease: Lease | undefined) => void,
    private readonly opts: LeaseFollowerOptions,
  ) {
    this.backoffMs = opts.backoffMs ?? 250;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
  }

  /** Cuts the current stream (presumed dead); the loop resumes from the last version seen. */
  restart(): void {
    this.stream?.abort(new Error('watch restarted'));
  }

  /** Runs until the signal aborts. Never throws. */
  async run(signal: AbortSignal): Promise<void> {
    const fieldSelector = `metadata.name=${this.name}`;
    let rv = '';
    while (!signal.aborted) {
      const stream = new AbortController();
      this.stream = stream;
      const both = AbortSignal.any([signal, stream.signal]);
      let delivered = false;
      try {
        if (!rv) {
          const list = await this.client.list<Lease>(R.leases, this.namespace, { fieldSelector, signal: both });
          rv = list.metadata?.resourceVersion ?? '';
          const l = list.items.find((x) => x.metadata.name === this.name);
          if (l) this.onVersion(l);
        }
        const events = this.client.watch<Lease>(R.leases, this.namespace, {
          fieldSelector,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          timeoutSeconds: Math.floor(300 + Math.random() * 300),
          signal: both,
        });
        for await (const ev of events) {
          delivered = true;
          this.failures = 0;
          const v = ev.object.metadata.resourceVersion;
          if (v) rv = v;
          if (ev.type === 'BOOKMARK' || ev.object.metadata.name !== this.name) continue;
          this.onVersion(ev.type === 'DELETED' ? undefined : ev.object);
        }
        // The server ended the stream (timeoutSeconds) or restart() cut it: resume at once.
        this.failures = 0;
      } catch (e) {
        if (signal.aborted) return;
        if (stream.signal.aborted) continue;
        const code = (e as { code?: unknown }).code;
        if (code === 410) {
          rv = ''; // history compacted past our version: list again
          continue;
        }
        if (code === 403) {
          // A role that grants get/update on the Lease but not list/watch (client-go's elector only gets and
          // updates, so Helm charts grant no more): follow by polling alone, without a 403 every back-off.
          this.opts.logger.info({ err: String(e) }, 'lease watch forbidden; following the Lease by polling only');
          return;
        }
        if (delivered) continue; // a healthy stream broke (a replica went away): resume at once
        this.failures++;
        const wait = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (this.failures - 1)) * (1 + Math.random() * 0.5);
        this.opts.logger.debug({ err: String(e), retryInMs: Math.round(wait) }, 'lease watch failed');
        await this.opts.clock.sleep(wait, signal).catch(() => undefined);
      }
    }
  }
}

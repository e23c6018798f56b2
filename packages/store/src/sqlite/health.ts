// Write health of one process's SQLite store: what /readyz and /livez report as `etcd`, so a balancer
// routes around a replica that cannot write.
//
// Two kinds of fault:
// - A write failed (disk full, read-only file, I/O error). The store keeps trying: the next successful
//   commit — a client's write or the probe — clears the fault, so the replica recovers without a restart
//   once the disk is writable again.
// - A file the store writes was deleted or replaced underneath it (FileIdentity). Commits would land in an
//   unlinked inode that a crash throws away, so the store is fenced: every later write is refused with
//   StoreUnavailableError and readiness fails until the process restarts (reopening is only safe once no
//   process holds the old files, so it cannot be done here). When the database file itself is still in
//   place, what the orphaned WAL holds is checkpointed into it (`rescue`), so writes acknowledged before
//   the fault survive a crash. (A database file replaced underneath, e.g. by a restore, is left alone.)
//
// The probe follows kube-apiserver's etcd check: run when a health check asks, at most once per half the
// check timeout, answering in between with the last result; a probe not done within the timeout fails.
// Unlike etcd's check (a read), it writes — one row of `meta`, no revision — because only a write can show
// that the disk takes writes; it is skipped while real commits keep proving it.
import type { Logger } from '@kemu/base';
import { StoreUnavailableError } from '../backend.ts';
import type { FileIdentity } from './file-identity.ts';

export interface StoreHealthOptions {
  /** The files to watch; undefined for an in-memory database. */
  files: FileIdentity | undefined;
  /** One write through the normal write path that changes no key; rejects when the store cannot write. */
  probe: () => Promise<void>;
  /** Checkpoint what the (orphaned) WAL holds into the database file; true once nothing is left to copy. */
  rescue: () => boolean;
  /** kube-apiserver's --etcd-healthcheck-timeout (2 s): a probe slower than this fails the check. */
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
}

export class StoreHealth {
  private fence: StoreUnavailableError | undefined;
  private rescued = false;
  private lastError: Error | undefined;
  /** When a commit last proved that the store can write. */
  private lastOkAt = -Infinity;
  private lastProbeAt = -Infinity;
  private probing: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: StoreHealthOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Before a write transaction: the error to refuse it with, if the store is fenced. */
  refusal(): StoreUnavailableError | undefined {
    if (this.fence) this.tryRescue();
    return this.fence;
  }

  /** After a commit, before acknowledging it: undefined if its files are still the ones on disk. */
  verifyCommit(): StoreUnavailableError | undefined {
    const fenced = this.checkFiles();
    if (fenced) return fenced;
    this.lastOkAt = this.now();
    if (this.lastError) {
      this.opts.logger.info({ after: this.lastError.message }, 'store writes succeed again');
      this.lastError = undefined;
    }
    return undefined;
  }

  /** A write transaction failed for a reason other than a busy lock. It counts as a probe (the newest answer). */
  writeFailed(err: Error): void {
    this.lastProbeAt = this.now();
    if (!this.lastError) this.opts.logger.error({ err: err.message }, 'store cannot write; the etcd health check fails until a write succeeds');
    this.lastError = err;
  }

  /** The `etcd` check: false while fenced, after a failed write, or when the probe fails or is late. */
  async healthy(): Promise<boolean> {
    if (this.checkFiles()) return false;
    const now = this.now();
    const half = this.opts.timeoutMs / 2;
    if (!this.probing && now - Math.max(this.lastOkAt, this.lastProbeAt) >= half) {
      this.lastProbeAt = now;
      this.probing = this.runProbe();
    }
    if (this.probing) await this.waitForProbe(this.probing);
    return !this.fence && !this.lastError;
  }

  private async runProbe(): Promise<void> {
    try {
      await this.opts.probe();
    } catch (err) {
      // Failed transactions were reported by the writer already; this catches the rest (lock wait expired).
      if (!(err instanceof StoreUnavailableError)) this.writeFailed(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.probing = undefined;
    }
  }

  private async waitForProbe(p: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), this.opts.timeoutMs);
    });
    const isLate = await Promise.race([p.then(() => false), late]);
    clearTimeout(timer);
    if (isLate) this.writeFailed(new Error(`store write probe did not complete within ${this.opts.timeoutMs}ms`));
  }

  private checkFiles(): StoreUnavailableError | undefined {
    if (!this.fence && this.opts.files) {
      const changed = this.opts.files.check();
      if (changed) {
        this.fence = new StoreUnavailableError(
          `${changed.message}; writes are refused because a crash would lose them (restart every kube-apiserver using this file)`,
        );
        // Checkpointing into a database file that is no longer on disk would save nothing.
        if (changed.file === 'database') this.rescued = true;
        this.opts.logger.error({ reason: changed.message }, 'store fenced: refusing writes until restart');
      }
    }
    if (this.fence) this.tryRescue();
    return this.fence;
  }

  private tryRescue(): void {
    if (this.rescued) return;
    try {
      this.rescued = this.opts.rescue();
      if (this.rescued) this.opts.logger.warn('store fenced: checkpointed the open write-ahead log into the database file, so writes acknowledged before the fault survive a crash');
    } catch (err) {
      this.opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'store fenced: checkpoint of the open write-ahead log failed; retrying');
    }
  }
}

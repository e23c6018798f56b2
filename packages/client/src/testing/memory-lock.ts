// Test helper: an in-memory ResourceLock whose writes can be made to hang (a wedged request that ignores its
// deadline) or fail, for LeaderElector tests on a FakeClock.
import type { LeaderElectionRecord, ObservedRecord, ResourceLock } from '../leaderelection/leaselock.ts';

/** An in-memory lock whose writes can be made to hang or fail. */
export class MemoryLock implements ResourceLock {
  rec: LeaderElectionRecord | undefined;
  hang = false;
  /** Writes fail at once (as a 500 would). */
  fail = false;
  private n = 0;
  private obs(): ObservedRecord {
    return { record: { ...(this.rec as LeaderElectionRecord) }, raw: String(++this.n) };
  }
  async get(): Promise<ObservedRecord | undefined> {
    return this.rec ? this.obs() : undefined;
  }
  async create(r: LeaderElectionRecord): Promise<ObservedRecord> {
    this.rec = r;
    return this.obs();
  }
  async update(r: LeaderElectionRecord): Promise<ObservedRecord> {
    if (this.hang) await new Promise(() => undefined);
    if (this.fail) throw new Error('lock write failed');
    this.rec = r;
    return this.obs();
  }
  recordEvent(): void {}
  identity(): string {
    return 'me';
  }
  describe(): string {
    return 'mem/lock';
  }
}

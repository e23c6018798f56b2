// Test helper: a small tmpfs of its own, to fill up for real "disk full" tests. Mounting needs root (or
// CAP_SYS_ADMIN); where that is refused, mountTmpfs returns undefined and the test skips with the reason.
// fill() takes the remaining space with one file; free() removes it, so the same disk takes writes again.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Writes one file that takes all free space but `leaveBytes`. */
  fill(leaveBytes?: number): void;
  /** Removes what fill() wrote. */
  free(): void;
  unmount(): void;
}

export function mountTmpfs(sizeBytes: number): Tmpfs | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'kemu-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes = 0) {
      const s = statfsSync(dir);
      const free = s.bavail * s.bsize - leaveBytes;
      // Written in pieces until ENOSPC, so rounding of block accounting cannot leave space behind.
      const chunk = Buffer.alloc(64 * 1024);
      let left = free;
      while (left > 0) {
        try {
          writeFileSync(filler, left >= chunk.length ? chunk : chunk.subarray(0, left), { flag: 'a' });
        } catch {
          break;
        }
        left -= chunk.length;
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

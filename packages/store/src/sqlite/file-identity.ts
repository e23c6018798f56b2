// Is the file this process writes still the one on disk? SQLite keeps its database, WAL and shared-memory
// files open for the life of a connection; if one of them is deleted or replaced underneath (an `rm
// state.db-wal`, a restore over a running store), every process that had it open keeps writing to the
// unlinked inode. Commits still succeed and are visible to the other processes, yet a crash of all of them
// loses everything not yet checkpointed into the database file — silently, with integrity_check ok.
//
// The check compares (device, inode) of the three paths with what they were when the store opened. It is
// a stat(2) per file, a few microseconds, cheap enough to run after every commit before acknowledging it.
import { statSync } from 'node:fs';
import { basename } from 'node:path';

export type StoreFile = 'database' | 'wal' | 'shm';

/** A file that is no longer the one the store opened. */
export interface FileChange {
  file: StoreFile;
  /** e.g. "state.db-wal was deleted while the store had it open". */
  message: string;
}

interface Recorded {
  file: StoreFile;
  path: string;
  dev: number;
  ino: number;
}

export class FileIdentity {
  private readonly files: Recorded[] = [];

  /** Records the identity of dbPath and its -wal and -shm files as they are now (call once the store is open). */
  constructor(dbPath: string) {
    const files: Array<[StoreFile, string]> = [['database', dbPath], ['wal', `${dbPath}-wal`], ['shm', `${dbPath}-shm`]];
    for (const [file, path] of files) {
      const s = statSync(path, { throwIfNoEntry: false });
      // A file missing right after opening in WAL mode is not one this process holds open: nothing to watch.
      if (s) this.files.push({ file, path, dev: s.dev, ino: s.ino });
    }
  }

  /** Undefined while every file is the one opened; otherwise the first that changed. */
  check(): FileChange | undefined {
    for (const f of this.files) {
      const s = statSync(f.path, { throwIfNoEntry: false });
      if (!s) return { file: f.file, message: `${basename(f.path)} was deleted while the store had it open` };
      if (s.dev !== f.dev || s.ino !== f.ino) {
        return { file: f.file, message: `${basename(f.path)} was replaced while the store had it open (inode ${f.dev}:${f.ino}, now ${s.dev}:${s.ino})` };
      }
    }
    return undefined;
  }
}

// Test helper: one kube-apiserver process on 127.0.0.1 over a SQLite file, returned once /readyz answers 200
// (or failing at once with its output if it exits first). Every fixture that starts apiservers goes through it.
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { Agent, request } from 'undici';

export interface ApiserverProc {
  proc: Proc;
  port: number;
  url: string;
}

export interface ApiserverOptions {
  /** The port to listen on (a restart reuses the old one); a free one by default. */
  port?: number;
  /** More flags, after the bind address, port and datastore. */
  extra?: string[];
  /** 'https' when extra gives it a certificate; readiness then skips verifying it. */
  scheme?: 'http' | 'https';
}

export async function startApiserver(name: string, db: string, o: ApiserverOptions = {}): Promise<ApiserverProc> {
  const port = o.port ?? (await freePort());
  const proc = startProcess(name, BIN.apiserver, ['--bind-address=127.0.0.1', `--secure-port=${port}`, `--datastore-endpoint=sqlite://${db}`, ...(o.extra ?? [])]);
  const url = `${o.scheme ?? 'http'}://127.0.0.1:${port}`;
  const dispatcher = o.scheme === 'https' ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  await waitFor(
    `${name} ready`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited: ${proc.output()}`);
      const r = await request(`${url}/readyz`, dispatcher ? { dispatcher } : {});
      await r.body.text();
      return r.statusCode === 200;
    },
    30_000,
  );
  return { proc, port, url };
}

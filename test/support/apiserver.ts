// Test helper: one kube-apiserver process on 127.0.0.1 over a SQLite file, returned once /readyz answers 200
// (or failing at once with its output if it exits first). Every fixture that starts apiservers goes through it.
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import path from 'node:path';
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
  /**
   * 'http' (the default): plain HTTP on --insecure-port (HTTPS off: --secure-port=0), no authentication or
   * authorization, as the tests that are not about either want. 'https': --secure-port (extra gives it a
   * certificate, or it makes a self-signed one in a temporary --cert-dir); readiness then skips verifying it.
   */
  scheme?: 'http' | 'https';
}

export async function startApiserver(name: string, db: string, o: ApiserverOptions = {}): Promise<ApiserverProc> {
  const port = o.port ?? (await freePort());
  const serving = o.scheme === 'https' ? [`--secure-port=${port}`, `--cert-dir=${path.join(path.dirname(db), `${name}-certs`)}`] : ['--secure-port=0', `--insecure-port=${port}`];
  const proc = startProcess(name, BIN.apiserver, ['--bind-address=127.0.0.1', ...serving, `--datastore-endpoint=sqlite://${db}`, ...(o.extra ?? [])]);
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

/**
 * A kube-apiserver over HTTPS with the lab's PKI in `pki` (ensureClusterPki's files): its serving certificate, the
 * client CA, ServiceAccount keys and issuer, --authorization-mode=Node,RBAC, plus `extra`.
 */
export function startPkiApiserver(name: string, db: string, pki: string, port: number, extra: string[] = []): Promise<ApiserverProc> {
  return startApiserver(name, db, {
    port,
    scheme: 'https',
    extra: [
      `--tls-cert-file=${pki}/apiserver.pem`,
      `--tls-private-key-file=${pki}/apiserver-key.pem`,
      `--client-ca-file=${pki}/ca.pem`,
      `--service-account-key-file=${pki}/sa.pub`,
      `--service-account-signing-key-file=${pki}/sa.key`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--authorization-mode=Node,RBAC',
      ...extra,
    ],
  });
}

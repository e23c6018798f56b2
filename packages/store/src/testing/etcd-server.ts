// Starts a one-member etcd (Debian's etcd-server package) on free loopback ports in a temp dir, for
// tests; stop() kills it by pid and removes the dir, kill()/start() take it down and up on the same data. With tls, it serves HTTPS with a CA, server and client
// certificate made by openssl and requires client certificates (--client-cert-auth).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@kemu/base/testing/ports';

export interface EtcdTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface TestEtcd {
  /** The client URL, as --etcd-servers takes it. */
  url: string;
  pid: number;
  tls?: EtcdTlsFiles;
  /** SIGKILLs it and removes its dir. */
  stop(): Promise<void>;
  /** SIGKILLs it, keeping its data. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data (after kill). */
  start(): Promise<void>;
}

/** Why etcd tests cannot run here, or undefined when they can. */
export function etcdMissing(): string | undefined {
  if (spawnSync('etcd', ['--version']).status !== 0) return 'etcd not installed (apt-get install etcd-server)';
  return undefined;
}

export function opensslMissing(): string | undefined {
  return spawnSync('openssl', ['version']).status === 0 ? undefined : 'openssl not installed';
}

function openssl(dir: string, args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA. */
export function makeEtcdCerts(dir: string): EtcdTlsFiles & { serverCert: string; serverKey: string } {
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=etcd-ca']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${who}.key`, '-out', `${who}.csr`, '-subj', `/CN=etcd-${who}`]);
    openssl(dir, ['x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${who}.crt`, '-days', '1', '-extfile', `${who}.ext`]);
  }
  return {
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'client.crt'),
    keyFile: join(dir, 'client.key'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
  };
}

export async function startEtcd(opts: { tls?: boolean; timeoutMs?: number } = {}): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'kemu-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const scheme = opts.tls ? 'https' : 'http';
  const url = `${scheme}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const certs = opts.tls ? makeEtcdCerts(dir) : undefined;
  const args = [
    '--name', 'kemu-test',
    '--data-dir', join(dir, 'data'),
    '--listen-client-urls', url,
    '--advertise-client-urls', url,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `kemu-test=${peer}`,
    '--initial-cluster-state', 'new',
    ...(certs ? ['--cert-file', certs.serverCert, '--key-file', certs.serverKey, '--trusted-ca-file', certs.caFile, '--client-cert-auth'] : []),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid as number, 'SIGKILL');
      await exited;
    }
  };
  const launch = async (): Promise<void> => {
    const c = spawn('etcd', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    exited = new Promise<void>((r) => c.once('exit', () => r()));
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`etcd did not become ready in time:\n${log.slice(-2000)}`)), opts.timeoutMs ?? 20_000);
      const onData = (d: Buffer): void => {
        log = (log + d.toString()).slice(-4000);
        if (log.includes('ready to serve client requests')) {
          clearTimeout(timer);
          resolve();
        }
      };
      c.stdout?.on('data', onData);
      c.stderr?.on('data', onData);
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`etcd exited with ${code}:\n${log.slice(-2000)}`));
      });
    });
  };
  const stop = async (): Promise<void> => {
    await kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    get pid() {
      return child?.pid ?? 0;
    },
    stop,
    kill,
    start: async () => {
      await kill();
      await launch();
    },
    ...(certs ? { tls: { caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile } } : {}),
  };
}

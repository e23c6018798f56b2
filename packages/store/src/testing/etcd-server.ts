// Starts a one-member etcd (Debian's etcd-server package) on free loopback ports in a temp dir, for
// tests; stop() kills it by pid and removes the dir. With tls, it serves HTTPS with a CA, server and client
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
  stop(): Promise<void>;
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
  const child: ChildProcess = spawn('etcd', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.env.ETCD_UNSUPPORTED_ARCH ?? '' } });
  const pid = child.pid as number;
  let log = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(pid, 'SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`etcd did not become ready in time:\n${log.slice(-2000)}`)), opts.timeoutMs ?? 20_000);
      const onData = (d: Buffer): void => {
        log += d.toString();
        if (log.includes('ready to serve client requests')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`etcd exited with ${code}:\n${log.slice(-2000)}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  // Keep draining its output so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return { url, pid, stop, ...(certs ? { tls: { caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile } } : {}) };
}

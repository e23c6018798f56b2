// `kemu pki`: makes (or completes) the lab's PKI in DIR/pki/ and the components' kubeconfigs in DIR/, in seed
// 003's layout, printing what it did in kubeadm's words. Files that are there and valid are kept; --force
// regenerates everything.
import path from 'node:path';
import { parseFlags } from '@kemu/base';
import { apiserverHosts, ensureClusterPki, pkiDir, splitHosts, type PkiAction } from '@kemu/pki';
import { PKI_FLAGS, resolveDataDir } from '../options.ts';
import { UsageError } from './errors.ts';

export async function pki(argv: string[]): Promise<number> {
  const f = parseFlags(PKI_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu pki takes no arguments (got ${f._.join(' ')})`);
  if (!/^https:\/\/[^/]+/.test(f.server)) throw new UsageError(`--server ${f.server}: want an https:// URL`);
  const dataDir = resolveDataDir(f['data-dir']);
  const o = {
    dataDir,
    apiserverAddresses: f['apiserver-addresses'],
    lbAddress: f['lb-address'],
    extraSans: f['extra-sans'],
    serviceClusterIpRange: f['service-cluster-ip-range'],
    server: f.server,
    force: f.force,
  };
  let hosts: string[];
  try {
    hosts = apiserverHosts(o);
  } catch (e) {
    throw new UsageError((e as Error).message); // a bad flag value: exit code 2
  }
  say(`[certs] Using certificateDir folder "${pkiDir(dataDir)}"`);
  const actions = await ensureClusterPki(o);
  for (const a of actions) for (const line of describe(a, dataDir, hosts)) say(line);
  return 0;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function describe(a: PkiAction, dataDir: string, hosts: string[]): string[] {
  const why = a.reason ? ` (${a.reason})` : '';
  const made = a.action === 'created' ? 'Generating' : 'Regenerating';
  switch (a.kind) {
    case 'ca':
      return a.action === 'kept' ? [`[certs] Using existing ${a.name} certificate authority`] : [`[certs] ${made} "${a.name}" certificate and key${why}`];
    case 'cert': {
      if (a.action === 'kept') return [`[certs] Using existing ${a.name} certificate and key on disk`];
      const lines = [`[certs] ${made} "${a.name}" certificate and key${why}`];
      if (a.name === 'apiserver') {
        const { dnsNames, ipAddresses } = splitHosts(hosts);
        lines.push(`[certs] apiserver serving cert is signed for DNS names [${dnsNames.join(' ')}] and IPs [${ipAddresses.join(' ')}]`);
      }
      return lines;
    }
    case 'key':
      if (a.action === 'kept') return [`[certs] Using the existing "${a.name}" key`];
      if (a.file.endsWith('.pub')) return [`[certs] Rewriting the "${a.name}" public key${why}`];
      return [`[certs] ${made} "${a.name}" key and public key${why}`];
    case 'kubeconfig':
      return a.action === 'kept'
        ? [`[kubeconfig] Using existing kubeconfig file: "${path.join(dataDir, a.file)}"`]
        : [`[kubeconfig] Writing "${a.name}" kubeconfig file${a.action === 'updated' ? ' (its certificates or server changed)' : ''}`];
  }
}

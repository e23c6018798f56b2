// etcd's PKI as seed 003's etcd deployment names it (/etc/etcd/ssl/etcd-ca.pem, etcd.pem, etcd-key.pem, which
// kube-apiserver's --etcd-cafile/--etcd-certfile/--etcd-keyfile point at), made with cfssl from etcd-ca-csr.json
// and etcd-csr.json (CN etcd, O etcd, OU "Etcd Security") under the kubernetes profile: one certificate that is
// every member's server and peer certificate and the apiservers' client certificate, its SANs every member's
// address. A CA of its own, apart from the cluster CA, so a certificate of the cluster CA cannot read etcd.
// Files that still fit are kept, as ensureClusterPki keeps the cluster's.
import fs from 'node:fs';
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import { generatePrivateKey, privateKeyPem, RSA_2048 } from './keys.ts';
import { certificatePem, issueCertificate, templateFromProfile } from './cert.ts';
import { createCsr } from './csr.ts';
import { CA_PROFILE, KUBERNETES_PROFILE } from './profile.ts';
import { writeFileAtomic, PRIVATE_MODE, PUBLIC_MODE } from './files.ts';
import type { DistinguishedName } from './name.ts';
import { PkiError } from './errors.ts';
import { leafProblem, loadCa, pkiDir, type PkiAction } from './cluster-pki.ts';

const etcdNames: DistinguishedName = { C: ['CN'], ST: ['Beijing'], L: ['Beijing'], O: ['etcd'], OU: ['Etcd Security'] };
export const ETCD_CA_SUBJECT: DistinguishedName = { ...etcdNames, CN: 'etcd' };
export const ETCD_SUBJECT: DistinguishedName = { ...etcdNames, CN: 'etcd' };

export interface EtcdPkiFiles {
  ca: string;
  caKey: string;
  cert: string;
  key: string;
}

export function etcdPkiFiles(dataDir: string): EtcdPkiFiles {
  const dir = pkiDir(dataDir);
  return { ca: path.join(dir, 'etcd-ca.pem'), caKey: path.join(dir, 'etcd-ca-key.pem'), cert: path.join(dir, 'etcd.pem'), key: path.join(dir, 'etcd-key.pem') };
}

/** The hosts of etcd.pem: loopback and localhost (etcdctl on a member's machine), then each member's address or name. */
export function etcdHosts(members: readonly string[]): string[] {
  return [...new Set(['127.0.0.1', 'localhost', ...members.map((m) => m.trim())])];
}

/** Makes or completes DIR/pki/etcd-ca.pem and etcd.pem for these member addresses; returns what it did. */
export async function ensureEtcdPki(o: { dataDir: string; members: readonly string[]; force?: boolean; nowMs?: number }): Promise<PkiAction[]> {
  const now = o.nowMs ?? Date.now();
  const f = etcdPkiFiles(o.dataDir);
  const rel = (file: string) => path.relative(o.dataDir, file);
  const actions: PkiAction[] = [];
  fs.mkdirSync(path.dirname(f.ca), { recursive: true });
  const writePair = async (base: string, key: KeyObject, pem: string, hosts: string[], subject: DistinguishedName, isCA: boolean) => {
    writeFileAtomic(path.join(path.dirname(f.ca), `${base}-key.pem`), privateKeyPem(key), PRIVATE_MODE);
    writeFileAtomic(path.join(path.dirname(f.ca), `${base}.csr`), (await createCsr(subject, key, hosts, isCA)).toString('pem') + '\n', PUBLIC_MODE);
    writeFileAtomic(path.join(path.dirname(f.ca), `${base}.pem`), pem, PUBLIC_MODE);
  };

  let ca: ReturnType<typeof loadCa>;
  if (!o.force && (fs.existsSync(f.ca) || fs.existsSync(f.caKey))) {
    ca = loadCa(f.ca, f.caKey, now);
    actions.push({ name: 'etcd-ca', kind: 'ca', file: rel(f.ca), action: 'kept' });
  } else {
    const had = fs.existsSync(f.ca);
    const key = await generatePrivateKey(RSA_2048);
    const cert = await issueCertificate(templateFromProfile(CA_PROFILE, { subject: ETCD_CA_SUBJECT, publicKey: key, isCA: true, nowMs: now }), { selfKey: key });
    await writePair('etcd-ca', key, certificatePem(cert), [], ETCD_CA_SUBJECT, true);
    ca = { cert, key };
    actions.push({ name: 'etcd-ca', kind: 'ca', file: rel(f.ca), action: had ? 'renewed' : 'created', ...(had ? { reason: 'forced' } : {}) });
  }

  const hosts = etcdHosts(o.members);
  let why: string | undefined;
  if (o.force) why = fs.existsSync(f.cert) ? 'forced' : undefined;
  else if (fs.existsSync(f.cert) || fs.existsSync(f.key)) {
    // Server, peer and client at once: checked for serverAuth here, the profile gives it clientAuth too.
    why = leafProblem(f.cert, f.key, ca.cert, 'serverAuth', hosts, now);
    if (!why) return [...actions, { name: 'etcd', kind: 'cert', file: rel(f.cert), action: 'kept' }];
  }
  if (!ca.key) throw new PkiError(`cannot issue ${rel(f.cert)}${why ? ` (${why})` : ''}: ${rel(f.caKey)} is missing`);
  const key = await generatePrivateKey(RSA_2048);
  const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: ETCD_SUBJECT, publicKey: key, hosts, nowMs: now }), { cert: ca.cert, key: ca.key });
  await writePair('etcd', key, certificatePem(cert), hosts, ETCD_SUBJECT, false);
  actions.push({ name: 'etcd', kind: 'cert', file: rel(f.cert), action: why === undefined ? 'created' : 'renewed', ...(why ? { reason: why } : {}) });
  return actions;
}

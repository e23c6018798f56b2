// The control plane's PKI as seed 003 makes it with cfssl and openssl, under its file names, in DIR/pki/, and the
// components' kubeconfigs with embedded certificates in DIR/ (as /etc/kubernetes/pki/ and /etc/kubernetes/).
// Like `kubeadm init phase certs`, it keeps what is there and valid and makes what is missing; unlike kubeadm it
// re-issues a leaf certificate that no longer fits (another CA, expired, a missing SAN), as the seed re-issues
// apiserver.pem when addresses are added. A CA that is present but unusable is refused, never replaced, unless
// `force` regenerates everything.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import { generatePrivateKey, parsePrivateKeyPem, parsePublicKeyPem, privateKeyPem, publicKeyPem, sameKey, RSA_2048 } from './keys.ts';
import { certificatePem, issueCertificate, parseCertificates, templateFromProfile, type Signer } from './cert.ts';
import { createCsr } from './csr.ts';
import { CA_PROFILE, KUBERNETES_PROFILE, type ExtKeyUsage } from './profile.ts';
import { canSign, subjectAltNames, verifyCertificate } from './verify.ts';
import { embeddedKubeconfigYaml } from './kubeconfig.ts';
import { readCertAndKey, writeFileAtomic, PRIVATE_MODE, PUBLIC_MODE } from './files.ts';
import type { DistinguishedName } from './name.ts';
import { PkiError } from './errors.ts';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, firstServiceIP } from '@kemu/base';
import { parse as parseYaml } from 'yaml';

// The seed's CSR JSON "names": C CN, ST/L Beijing, OU Kubernetes-manual, O per certificate.
const seedNames = (o: string): DistinguishedName => ({ C: ['CN'], ST: ['Beijing'], L: ['Beijing'], O: [o], OU: ['Kubernetes-manual'] });

export interface CaSpec {
  name: 'ca' | 'front-proxy-ca';
  subject: DistinguishedName;
}

export interface LeafSpec {
  name: string;
  ca: CaSpec['name'];
  subject: DistinguishedName;
  /** What the certificate is checked for when kept (the profile gives every leaf both). */
  usage: ExtKeyUsage;
  /** The apiserver's serving certificate carries the cluster's SANs. */
  serving?: boolean;
}

export const CLUSTER_CAS: readonly CaSpec[] = [
  { name: 'ca', subject: { ...seedNames('Kubernetes'), CN: 'kubernetes' } }, // ca-csr.json
  { name: 'front-proxy-ca', subject: { CN: 'kubernetes' } }, // front-proxy-ca-csr.json
];

export const CLUSTER_LEAVES: readonly LeafSpec[] = [
  { name: 'apiserver', ca: 'ca', subject: { ...seedNames('Kubernetes'), CN: 'kube-apiserver' }, usage: 'serverAuth', serving: true },
  { name: 'front-proxy-client', ca: 'front-proxy-ca', subject: { CN: 'front-proxy-client' }, usage: 'clientAuth' },
  { name: 'controller-manager', ca: 'ca', subject: { ...seedNames('system:kube-controller-manager'), CN: 'system:kube-controller-manager' }, usage: 'clientAuth' },
  { name: 'scheduler', ca: 'ca', subject: { ...seedNames('system:kube-scheduler'), CN: 'system:kube-scheduler' }, usage: 'clientAuth' },
  { name: 'kube-proxy', ca: 'ca', subject: { ...seedNames('system:kube-proxy'), CN: 'system:kube-proxy' }, usage: 'clientAuth' },
  { name: 'admin', ca: 'ca', subject: { ...seedNames('system:masters'), CN: 'kubernetes-admin' }, usage: 'clientAuth' },
  // Not in the seed (its apiserver uses apiserver.pem as kubelet client); named and shaped as kubeadm's.
  { name: 'apiserver-kubelet-client', ca: 'ca', subject: { O: ['system:masters'], CN: 'kube-apiserver-kubelet-client' }, usage: 'clientAuth' },
];

export const CLUSTER_KUBECONFIGS: readonly { file: string; cert: string; user: string }[] = [
  { file: 'admin.kubeconfig', cert: 'admin', user: 'kubernetes-admin' },
  // Seed 003's kube-proxy.kubeconfig: kemu's kube-proxy runs inside each kubelet and uses it (--proxy-kubeconfig).
  { file: 'kube-proxy.kubeconfig', cert: 'kube-proxy', user: 'system:kube-proxy' },
  { file: 'controller-manager.kubeconfig', cert: 'controller-manager', user: 'system:kube-controller-manager' },
  { file: 'scheduler.kubeconfig', cert: 'scheduler', user: 'system:kube-scheduler' },
];

export { DEFAULT_SERVICE_CLUSTER_IP_RANGE };
export const DEFAULT_PKI_SERVER = 'https://127.0.0.1:6443';

export interface ClusterPkiOptions {
  /** The lab's data dir: certificates go to DIR/pki/, kubeconfigs to DIR/. */
  dataDir: string;
  /** Address (IP or name) of every apiserver, each a SAN of apiserver.pem. */
  apiserverAddresses?: readonly string[];
  /** The balancer's address, a SAN of apiserver.pem (default 127.0.0.1). */
  lbAddress?: string;
  /** More SANs (cfssl's -hostname entries: IPs, the rest DNS names). */
  extraSans?: readonly string[];
  /** Its first address is the `kubernetes` Service's ClusterIP, a SAN (default 10.96.0.0/12, so 10.96.0.1). */
  serviceClusterIpRange?: string;
  /** The server URL in the kubeconfigs (default https://127.0.0.1:6443). */
  server?: string;
  /** Regenerate every file, CAs included. */
  force?: boolean;
  nowMs?: number;
}

export type PkiActionKind = 'created' | 'kept' | 'renewed' | 'updated';
export interface PkiAction {
  /** ca, apiserver, sa, admin.kubeconfig… */
  name: string;
  kind: 'ca' | 'cert' | 'key' | 'kubeconfig';
  /** Relative to the data dir (pki/ca.pem, pki/sa.key, admin.kubeconfig). */
  file: string;
  action: PkiActionKind;
  reason?: string;
}
type Note = (kind: PkiAction['kind'], name: string, file: string, action: PkiActionKind, reason?: string) => void;

export function pkiDir(dataDir: string): string {
  return path.join(dataDir, 'pki');
}

/** The apiserver certificate's hosts in the seed's -hostname order (cfssl stores DNS names first, then IPs). */
export function apiserverHosts(o: Pick<ClusterPkiOptions, 'apiserverAddresses' | 'lbAddress' | 'extraSans' | 'serviceClusterIpRange'>): string[] {
  const hosts = [
    kubernetesServiceIP(o.serviceClusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE),
    o.lbAddress ?? '127.0.0.1',
    '127.0.0.1',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster',
    'kubernetes.default.svc.cluster.local',
    ...(o.apiserverAddresses ?? []),
    ...(o.extraSans ?? []),
  ].map((h) => h.trim());
  for (const h of hosts) if (!h || /[\s,]/.test(h)) throw new PkiError(`invalid SAN "${h}": want an IP address or a DNS name`);
  return [...new Set(hosts)];
}

/** The `kubernetes` Service's ClusterIP (a SAN), refusing the ranges kube-apiserver refuses. */
function kubernetesServiceIP(range: string): string {
  try {
    return firstServiceIP(range);
  } catch (e) {
    throw new PkiError(`invalid service cluster IP range "${range}": ${e instanceof Error ? e.message : String(e)}`);
  }
}

const exists = (f: string) => fs.existsSync(f);

export async function ensureClusterPki(o: ClusterPkiOptions): Promise<PkiAction[]> {
  const now = o.nowMs ?? Date.now();
  const dir = pkiDir(o.dataDir);
  const actions: PkiAction[] = [];
  const rel = (f: string) => path.relative(o.dataDir, f);
  const note: Note = (kind, name, file, action, reason) => actions.push({ name, kind, file: rel(file), action, ...(reason ? { reason } : {}) });
  const hosts = apiserverHosts(o);
  fs.mkdirSync(dir, { recursive: true });

  // cfssljson -bare's three files: NAME-key.pem, NAME.csr, NAME.pem.
  const writeKeyPair = async (name: string, key: KeyObject, pem: string, csrHosts: string[], subject: DistinguishedName, isCA = false) => {
    writeFileAtomic(path.join(dir, `${name}-key.pem`), privateKeyPem(key), PRIVATE_MODE);
    writeFileAtomic(path.join(dir, `${name}.csr`), (await createCsr(subject, key, csrHosts, isCA)).toString('pem') + '\n', PUBLIC_MODE);
    writeFileAtomic(path.join(dir, `${name}.pem`), pem, PUBLIC_MODE);
  };

  // CAs: kept when usable, made when absent, refused when present but unusable.
  const signers = new Map<CaSpec['name'], { cert: Signer['cert']; key?: KeyObject }>();
  await Promise.all(
    CLUSTER_CAS.map(async (ca) => {
      const certFile = path.join(dir, `${ca.name}.pem`);
      const keyFile = path.join(dir, `${ca.name}-key.pem`);
      if (!o.force && (exists(certFile) || exists(keyFile))) {
        signers.set(ca.name, loadCa(certFile, keyFile, now));
        note('ca', ca.name, certFile, 'kept');
        return;
      }
      const had = exists(certFile);
      const key = await generatePrivateKey(RSA_2048);
      const cert = await issueCertificate(templateFromProfile(CA_PROFILE, { subject: ca.subject, publicKey: key, isCA: true, nowMs: now }), { selfKey: key });
      await writeKeyPair(ca.name, key, certificatePem(cert), [], ca.subject, true);
      signers.set(ca.name, { cert, key });
      note('ca', ca.name, certFile, had ? 'renewed' : 'created', had ? 'forced' : undefined);
    }),
  );

  // Leaves: kept when valid for their CA and purpose, else (re)issued.
  await Promise.all([
    ensureServiceAccountKey(dir, !!o.force, note),
    ...CLUSTER_LEAVES.map(async (leaf) => {
      const certFile = path.join(dir, `${leaf.name}.pem`);
      const keyFile = path.join(dir, `${leaf.name}-key.pem`);
      const ca = signers.get(leaf.ca)!;
      const leafHosts = leaf.serving ? hosts : [];
      let why: string | undefined;
      if (o.force) why = exists(certFile) ? 'forced' : undefined;
      else if (!exists(certFile) && !exists(keyFile)) why = undefined;
      else {
        why = leafProblem(certFile, keyFile, ca.cert, leaf.usage, leafHosts, now);
        if (!why) return void note('cert', leaf.name, certFile, 'kept');
      }
      if (!ca.key) throw new PkiError(`cannot issue ${rel(certFile)}${why ? ` (${why})` : ''}: ${rel(path.join(dir, `${leaf.ca}-key.pem`))} is missing`);
      const key = await generatePrivateKey(RSA_2048);
      const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: leaf.subject, publicKey: key, hosts: leafHosts, nowMs: now }), {
        cert: ca.cert,
        key: ca.key,
      });
      await writeKeyPair(leaf.name, key, certificatePem(cert), leafHosts, leaf.subject);
      note('cert', leaf.name, certFile, why === undefined ? 'created' : 'renewed', why);
    }),
  ]);

  // Kubeconfigs: derived files, rewritten when what they embed or point at has changed.
  const server = o.server ?? DEFAULT_PKI_SERVER;
  const caPem = fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8');
  for (const k of CLUSTER_KUBECONFIGS) {
    const file = path.join(o.dataDir, k.file);
    const want = {
      server,
      caPem,
      user: k.user,
      clientCertPem: fs.readFileSync(path.join(dir, `${k.cert}.pem`), 'utf8'),
      clientKeyPem: fs.readFileSync(path.join(dir, `${k.cert}-key.pem`), 'utf8'),
    };
    const had = exists(file);
    if (!o.force && had && kubeconfigMatches(file, want)) {
      note('kubeconfig', k.file, file, 'kept');
      continue;
    }
    writeFileAtomic(file, embeddedKubeconfigYaml(want), PRIVATE_MODE);
    note('kubeconfig', k.file, file, had ? 'updated' : 'created');
  }
  // In a fixed order (CAs, certificates, the service-account key, kubeconfigs), whichever finished first.
  const rank = [...CLUSTER_CAS.map((c) => c.name), ...CLUSTER_LEAVES.map((l) => l.name), 'sa', ...CLUSTER_KUBECONFIGS.map((k) => k.file)];
  return actions.sort((a, b) => rank.indexOf(a.name) - rank.indexOf(b.name));
}

export function loadCa(certFile: string, keyFile: string, now: number): { cert: Signer['cert']; key?: KeyObject } {
  if (!exists(certFile)) throw new PkiError(`${certFile} is missing but its key ${path.basename(keyFile)} is there; restore it, or regenerate everything with --force`);
  const cert = parseCertificates(fs.readFileSync(certFile, 'utf8'), certFile)[0]!;
  if (!canSign(cert)) throw new PkiError(`${certFile} is not a CA certificate (Basic Constraints CA:TRUE with Certificate Sign); regenerate with --force`);
  if (now > cert.notAfter.getTime() || now < cert.notBefore.getTime())
    throw new PkiError(`${certFile} is outside its validity (${cert.notBefore.toISOString()} to ${cert.notAfter.toISOString()}); regenerate with --force`);
  // Without its key the CA can still be trusted (an external CA, as kubeadm allows); nothing new can be signed.
  if (!exists(keyFile)) return { cert };
  return readCertAndKey(certFile, keyFile);
}

/** Why an existing leaf certificate cannot be kept, or undefined when it can. */
export function leafProblem(certFile: string, keyFile: string, ca: Signer['cert'], usage: ExtKeyUsage, hosts: readonly string[], now: number): string | undefined {
  if (!exists(certFile)) return `${path.basename(certFile)} was missing`;
  if (!exists(keyFile)) return `${path.basename(keyFile)} was missing`;
  let s: Signer;
  try {
    s = readCertAndKey(certFile, keyFile);
  } catch (e) {
    return (e as Error).message;
  }
  const v = verifyCertificate(s.cert, { roots: [ca], usage, nowMs: now });
  if (!v.ok) return v.reason;
  if (hosts.length) {
    const have = subjectAltNames(s.cert);
    const missing = hosts.filter((h) => !have.dnsNames.includes(h) && !have.ipAddresses.includes(h));
    if (missing.length) return `missing SANs ${missing.join(', ')}`;
  }
  return undefined;
}

/** sa.key and sa.pub as `openssl genrsa` (3.x writes PKCS#8) and `openssl rsa -pubout` (SPKI) write them. */
async function ensureServiceAccountKey(dir: string, force: boolean, note: Note): Promise<void> {
  const keyFile = path.join(dir, 'sa.key');
  const pubFile = path.join(dir, 'sa.pub');
  if (force || !exists(keyFile)) {
    const had = exists(keyFile);
    const key = await generatePrivateKey(RSA_2048);
    writeFileAtomic(keyFile, privateKeyPem(key, 'pkcs8'), PRIVATE_MODE);
    writeFileAtomic(pubFile, publicKeyPem(key), PUBLIC_MODE);
    return note('key', 'sa', keyFile, had ? 'renewed' : 'created', had ? 'forced' : undefined);
  }
  const key = parsePrivateKeyPem(fs.readFileSync(keyFile, 'utf8'), keyFile);
  let why: string | undefined = 'sa.pub was missing';
  if (exists(pubFile)) {
    try {
      why = sameKey(key, parsePublicKeyPem(fs.readFileSync(pubFile, 'utf8'), pubFile)) ? undefined : 'sa.pub did not match sa.key';
    } catch (e) {
      why = (e as Error).message;
    }
  }
  if (!why) return note('key', 'sa', keyFile, 'kept');
  // The public half is derived from the key that tokens are signed with; only it is rewritten.
  writeFileAtomic(pubFile, publicKeyPem(key), PUBLIC_MODE);
  note('key', 'sa', pubFile, 'renewed', why);
}

function kubeconfigMatches(file: string, want: { server: string; caPem: string; user: string; clientCertPem: string; clientKeyPem: string }): boolean {
  try {
    const kc = parseYaml(fs.readFileSync(file, 'utf8')) as KubeconfigShape;
    const ctx = kc.contexts?.find((c) => c.name === kc['current-context'])?.context;
    const cluster = kc.clusters?.find((c) => c.name === ctx?.cluster)?.cluster;
    const user = kc.users?.find((u) => u.name === ctx?.user);
    const dec = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString().trim();
    return (
      cluster?.server === want.server &&
      dec(cluster['certificate-authority-data']) === want.caPem.trim() &&
      user?.name === want.user &&
      dec(user.user?.['client-certificate-data']) === want.clientCertPem.trim() &&
      dec(user.user?.['client-key-data']) === want.clientKeyPem.trim()
    );
  } catch {
    return false;
  }
}

interface KubeconfigShape {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: { name?: string; cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { name?: string; user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

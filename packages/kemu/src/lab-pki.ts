// The lab's PKI, made by `kemu up` and `kemu compose up` before anything starts: the cluster PKI of `kemu pki`
// (@kemu/pki's ensureClusterPki: CA, apiserver.pem for every apiserver address and the balancer, the admin,
// controller-manager and scheduler certificates and kubeconfigs, sa.key/sa.pub) and the user's DIR/kubeconfig
// (admin.kubeconfig's content). Kubelets normally get their certificates by TLS bootstrapping (lab-bootstrap.ts);
// only when they cannot (--kubelet-bootstrap=false, no controller-manager to sign) does this issue one client
// certificate and kubeconfig per kubelet (CN system:node:<node>, O system:nodes). It also issues metrics-server's,
// naming its ServiceAccount (metrics-server.kubeconfig). Files that still fit are kept.
import fs from 'node:fs';
import path from 'node:path';
import {
  KUBERNETES_PROFILE,
  PRIVATE_MODE,
  PUBLIC_MODE,
  certificatePem,
  embeddedKubeconfigYaml,
  ensureClusterPki,
  generatePrivateKey,
  issueCertificate,
  pkiDir,
  privateKeyPem,
  readCertAndKey,
  readSigner,
  templateFromProfile,
  verifyCertificate,
  writeFileAtomic,
  type PkiAction,
} from '@kemu/pki';

/** The user metrics-server's certificate names: its ServiceAccount's. */
export const METRICS_SERVER_USER = 'system:serviceaccount:kube-system:metrics-server';

export interface LabPkiOptions {
  dataDir: string;
  /** The balancer URL every kubeconfig points at (https://). */
  server: string;
  /** The balancer's address (a SAN). */
  lbAddress: string;
  /** Every apiserver's address (SANs). */
  apiserverAddresses: readonly string[];
  /** More SANs (container names in the compose lab). */
  extraSans?: readonly string[];
  /** Node names of the emulated kubelets that get a certificate made here (none when they bootstrap: their CSRs get one). */
  nodes: readonly string[];
  /** The user's kubeconfig server when it differs from the components' (the compose lab's published port). */
  userServer?: string;
}

/** Where the lab's files are, as the components' flags name them. */
export interface LabPkiFiles {
  dir: string;
  ca: string;
  frontProxyCa: string;
  /** The aggregator's client certificate (CN front-proxy-client): --proxy-client-cert-file / --proxy-client-key-file. */
  frontProxyClientCert: string;
  frontProxyClientKey: string;
  apiserverCert: string;
  apiserverKey: string;
  saKey: string;
  saPub: string;
  adminCert: string;
  adminKey: string;
  controllerManagerKubeconfig: string;
  schedulerKubeconfig: string;
  /**
   * metrics-server's kubeconfig: a client certificate naming the ServiceAccount kube-system/metrics-server (CN
   * system:serviceaccount:kube-system:metrics-server, O system:serviceaccounts and system:serviceaccounts:kube-system),
   * so components.yaml's RBAC, which binds that ServiceAccount, applies as written.
   */
  metricsServerKubeconfig: string;
  /** The kube-proxy's kubeconfig (CN system:kube-proxy, bound to system:node-proxier), for every kubelet's emulated kube-proxy. */
  kubeProxyKubeconfig: string;
  kubeletKubeconfig(node: string): string;
  /** The CA's key: the controller-manager's --cluster-signing-key-file. */
  caKey: string;
  /** Seed 003's bootstrap-kubelet.kubeconfig: the lab's bootstrap token (user tls-bootstrap-token-user). */
  bootstrapKubeconfig: string;
  /** A kubelet's --cert-dir, where it keeps the certificate its CSR got (kubelet-client-current.pem). */
  kubeletCertDir(node: string): string;
  /** The user's kubeconfig: DIR/kubeconfig. */
  userKubeconfig: string;
}

export function labPkiFiles(dataDir: string, root = dataDir): LabPkiFiles {
  // `root` is where the data dir is seen by the components (the compose lab mounts it elsewhere).
  const pki = pkiDir(root);
  return {
    dir: pki,
    ca: path.join(pki, 'ca.pem'),
    frontProxyCa: path.join(pki, 'front-proxy-ca.pem'),
    frontProxyClientCert: path.join(pki, 'front-proxy-client.pem'),
    frontProxyClientKey: path.join(pki, 'front-proxy-client-key.pem'),
    apiserverCert: path.join(pki, 'apiserver.pem'),
    apiserverKey: path.join(pki, 'apiserver-key.pem'),
    saKey: path.join(pki, 'sa.key'),
    saPub: path.join(pki, 'sa.pub'),
    adminCert: path.join(pki, 'admin.pem'),
    adminKey: path.join(pki, 'admin-key.pem'),
    controllerManagerKubeconfig: path.join(root, 'controller-manager.kubeconfig'),
    schedulerKubeconfig: path.join(root, 'scheduler.kubeconfig'),
    kubeProxyKubeconfig: path.join(root, 'kube-proxy.kubeconfig'),
    metricsServerKubeconfig: path.join(root, 'metrics-server.kubeconfig'),
    kubeletKubeconfig: (node) => path.join(root, `kubelet-${node}.kubeconfig`),
    caKey: path.join(pki, 'ca-key.pem'),
    bootstrapKubeconfig: path.join(root, 'bootstrap-kubelet.kubeconfig'),
    kubeletCertDir: (node) => path.join(pki, `kubelet-${node}`),
    userKubeconfig: path.join(root, 'kubeconfig'),
  };
}

/** Makes or completes the lab's PKI and kubeconfigs; returns what it did (for the start-up lines). */
export async function ensureLabPki(o: LabPkiOptions): Promise<PkiAction[]> {
  const actions = await ensureClusterPki({
    dataDir: o.dataDir,
    server: o.server,
    lbAddress: o.lbAddress,
    apiserverAddresses: o.apiserverAddresses,
    ...(o.extraSans ? { extraSans: o.extraSans } : {}),
  });
  const files = labPkiFiles(o.dataDir);
  const ca = readSigner(files.ca, path.join(files.dir, 'ca-key.pem'));
  const caPem = fs.readFileSync(files.ca, 'utf8');
  const clients = [
    ...o.nodes.map((node) => ({ name: `kubelet-${node}`, user: `system:node:${node}`, groups: ['system:nodes'], kubeconfig: files.kubeletKubeconfig(node) })),
    { name: 'metrics-server', user: METRICS_SERVER_USER, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'], kubeconfig: files.metricsServerKubeconfig },
  ];
  await Promise.all(
    clients.map(async ({ name, user, groups, kubeconfig: kubeconfigFile }) => {
      const certFile = path.join(files.dir, `${name}.pem`);
      const keyFile = path.join(files.dir, `${name}-key.pem`);
      let action: PkiAction['action'] = 'kept';
      let reason: string | undefined;
      try {
        const kept = readCertAndKey(certFile, keyFile);
        const v = verifyCertificate(kept.cert, { roots: [ca.cert], usage: 'clientAuth' });
        if (!v.ok) [action, reason] = ['renewed', v.reason];
      } catch (e) {
        [action, reason] = fs.existsSync(certFile) ? ['renewed', (e as Error).message] : ['created', undefined];
      }
      if (action !== 'kept') {
        const key = await generatePrivateKey();
        const cert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { O: groups, CN: user }, publicKey: key, nowMs: Date.now() }), ca);
        writeFileAtomic(keyFile, privateKeyPem(key), PRIVATE_MODE);
        writeFileAtomic(certFile, certificatePem(cert), PUBLIC_MODE);
      }
      actions.push({ name, kind: 'cert', file: path.relative(o.dataDir, certFile), action, ...(reason ? { reason } : {}) });
      const kubeconfig = embeddedKubeconfigYaml({ server: o.server, caPem, user, clientCertPem: fs.readFileSync(certFile, 'utf8'), clientKeyPem: fs.readFileSync(keyFile, 'utf8') });
      writeIfChanged(kubeconfigFile, kubeconfig);
    }),
  );
  // The user's kubeconfig is the admin's (CN kubernetes-admin, O system:masters), as kubeadm's admin.conf.
  const admin = fs.readFileSync(path.join(o.dataDir, 'admin.kubeconfig'), 'utf8');
  writeIfChanged(files.userKubeconfig, o.userServer ? admin.replace(`server: ${o.server}\n`, `server: ${o.userServer}\n`) : admin);
  return actions;
}

/**
 * A kubelet about to bootstrap: makes its --cert-dir and drops the kubeconfig and certificate this module issued
 * it in an earlier run without bootstrapping, so the kubelet makes a CSR. A kubeconfig the kubelet wrote itself
 * stays (it reuses it). True when a pre-issued kubeconfig was dropped.
 */
export function prepareBootstrappingKubelet(dataDir: string, node: string): boolean {
  const files = labPkiFiles(dataDir);
  fs.mkdirSync(files.kubeletCertDir(node), { recursive: true, mode: 0o700 });
  const certFile = path.join(files.dir, `kubelet-${node}.pem`);
  let cert: string;
  try {
    cert = fs.readFileSync(certFile, 'utf8');
  } catch {
    return false;
  }
  const kubeconfig = files.kubeletKubeconfig(node);
  let dropped = false;
  try {
    if (fs.readFileSync(kubeconfig, 'utf8').includes(`client-certificate-data: ${Buffer.from(cert).toString('base64')}`)) {
      fs.rmSync(kubeconfig);
      dropped = true;
    }
  } catch {
    // no kubeconfig
  }
  fs.rmSync(certFile, { force: true });
  fs.rmSync(path.join(files.dir, `kubelet-${node}-key.pem`), { force: true });
  return dropped;
}

export function writeIfChanged(file: string, text: string): void {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return;
  writeFileAtomic(file, text, PRIVATE_MODE);
}

/** TLS material for kemu's own requests to the lab (probes, `kemu status`): the CA and the admin certificate. */
export interface LabTls {
  ca: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** The lab's TLS material when its PKI exists, else undefined. */
export function readLabTls(dataDir: string): LabTls | undefined {
  const f = labPkiFiles(dataDir);
  try {
    return { ca: fs.readFileSync(f.ca), cert: fs.readFileSync(f.adminCert), key: fs.readFileSync(f.adminKey) };
  } catch {
    return undefined;
  }
}

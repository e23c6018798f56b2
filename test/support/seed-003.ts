// Seed 003's units (../shared/seeds/003_*.txt) as argument lists, and their paths mapped onto a PKI that
// @kemu/pki made in a temp dir (seed 003's file names under DIR/pki), so tests can start them verbatim.
import fs from 'node:fs';
import path from 'node:path';
import { request, type Agent } from 'undici';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';

/** Seed 003, lines 877-905 (the kube-apiserver unit's ExecStart), verbatim. */
export const SEED_003_APISERVER_FLAGS = [
  '--v=2',
  '--allow-privileged=true',
  '--bind-address=0.0.0.0',
  '--secure-port=6443',
  '--advertise-address=192.168.139.133',
  '--service-cluster-ip-range=10.96.0.0/12,fd00:1111::/112',
  '--service-node-port-range=30000-32767',
  '--etcd-servers=https://192.168.139.133:2379,https://192.168.139.134:2379,https://192.168.139.135:2379',
  '--etcd-cafile=/etc/etcd/ssl/etcd-ca.pem',
  '--etcd-certfile=/etc/etcd/ssl/etcd.pem',
  '--etcd-keyfile=/etc/etcd/ssl/etcd-key.pem',
  '--client-ca-file=/etc/kubernetes/pki/ca.pem',
  '--tls-cert-file=/etc/kubernetes/pki/apiserver.pem',
  '--tls-private-key-file=/etc/kubernetes/pki/apiserver-key.pem',
  '--kubelet-client-certificate=/etc/kubernetes/pki/apiserver.pem',
  '--kubelet-client-key=/etc/kubernetes/pki/apiserver-key.pem',
  '--service-account-key-file=/etc/kubernetes/pki/sa.pub',
  '--service-account-signing-key-file=/etc/kubernetes/pki/sa.key',
  '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
  '--enable-admission-plugins=NamespaceLifecycle,LimitRanger,ServiceAccount,DefaultStorageClass,DefaultTolerationSeconds,NodeRestriction,ResourceQuota',
  '--authorization-mode=Node,RBAC',
  '--enable-bootstrap-token-auth=true',
  '--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.pem',
  '--proxy-client-cert-file=/etc/kubernetes/pki/front-proxy-client.pem',
  '--proxy-client-key-file=/etc/kubernetes/pki/front-proxy-client-key.pem',
  '--requestheader-allowed-names=aggregator',
  '--requestheader-group-headers=X-Remote-Group',
  '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  '--requestheader-username-headers=X-Remote-User',
  '--enable-aggregator-routing=true',
];

/** Seed 003, section 7 (lines 544-553): the kube-scheduler unit's flags. */
export const SEED_003_SCHEDULER_FLAGS = ['--v=2', '--bind-address=0.0.0.0', '--leader-elect=true', '--kubeconfig=/etc/kubernetes/scheduler.kubeconfig'];

export const flagName = (arg: string): string => arg.replace(/^--/, '').split('=')[0] as string;

/**
 * The seed's flags with its paths moved into DIR/pki (by base name), `files` mapping other seed paths, and
 * `set` replacing whole flags by name (addresses, ports).
 */
export function seedArgs(flags: readonly string[], dir: string, o: { files?: Record<string, string>; set?: Record<string, string> } = {}): string[] {
  const pki = path.join(dir, 'pki');
  return flags.map((a) => {
    const name = flagName(a);
    const replaced = o.set?.[name];
    if (replaced !== undefined) return `--${name}=${replaced}`;
    const value = a.slice(a.indexOf('=') + 1);
    const file = o.files?.[value];
    if (file) return `--${name}=${file}`;
    if (value.startsWith('/etc/kubernetes/pki/')) return `--${name}=${path.join(pki, path.basename(value))}`;
    return a;
  });
}

/** Starts a process and waits until GET <base>/readyz (or `probe`) answers 200 through `agent`. */
export async function startReady(name: string, bin: string, args: string[], base: string, agent: Agent, probe = '/readyz', timeoutMs = 30_000): Promise<Proc> {
  const p = startProcess(name, bin, args);
  await waitFor(
    `${name} ready`,
    async () => {
      if (p.child.exitCode !== null) throw new Error(`${name} exited: ${p.output()}`);
      try {
        const r = await request(`${base}${probe}`, { dispatcher: agent });
        await r.body.text();
        return r.statusCode === 200;
      } catch {
        return false;
      }
    },
    timeoutMs,
  );
  return p;
}

/** The admin's client certificate and the CA from DIR/pki, for undici. */
export function adminTls(dir: string): { ca: Buffer; cert: Buffer; key: Buffer } {
  const pki = path.join(dir, 'pki');
  return { ca: fs.readFileSync(path.join(pki, 'ca.pem')), cert: fs.readFileSync(path.join(pki, 'admin.pem')), key: fs.readFileSync(path.join(pki, 'admin-key.pem')) };
}

export { BIN };

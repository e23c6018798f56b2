// The price of a secured control plane: 64 clients creating small ConfigMaps over 3 kube-apiserver replicas on
// one SQLite file, once over HTTPS as an ordinary user (client certificate → x509 authentication, then
// Node,RBAC authorization through a RoleBinding, the default admission plugins) and once on the same
// processes' --insecure-port (no authentication or authorization), alternating; prints creates/s of each and
// the ratio secured ÷ insecure (goal ≥ 0.7).
// usage: npm run bench -- secure-write [--seconds S] [--rounds N] (--help lists the flags)
import { certificatePem, ensureClusterPki, generatePrivateKey, issueCertificate, KUBERNETES_PROFILE, privateKeyPem, readSigner, templateFromProfile } from '@kemu/pki';
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request, type Dispatcher } from 'undici';
import { atLeast, benchFlags } from './lib/flags.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'secure-write',
  {
    seconds: { type: 'float', default: 8, usage: 'length of each timed phase in seconds' },
    rounds: { type: 'int', default: 3, usage: 'secured/insecure pairs to run (the median ratio is printed)' },
  },
  (f) => atLeast(f, 0, ['seconds'], true) ?? atLeast(f, 1, ['rounds']),
);
const CLIENTS = 64;
const REPLICAS = 3;
const procs: Proc[] = [];

interface Target {
  urls: string[];
  dispatcher: Dispatcher;
}

async function post(t: Target, url: string, body: string): Promise<number> {
  const r = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: t.dispatcher });
  await r.body.text();
  return r.statusCode;
}

async function writes(t: Target, seconds: number, tag: string): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; performance.now() < end; i++) {
        const url = `${t.urls[c % t.urls.length]}/api/v1/namespaces/default/configmaps`;
        const code = await post(t, url, JSON.stringify({ metadata: { name: `${tag}-${c}-${i}` }, data: { k: 'v' } }));
        if (code === 201) ok++;
        else failed++;
      }
    }),
  );
  if (failed > 0) throw new Error(`${failed} creates failed in phase ${tag}`);
  return ok / seconds;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

await runBench('secure-write', async (work) => {
  const dir = work.dir;
  await ensureClusterPki({ dataDir: dir, apiserverAddresses: ['127.0.0.1'] });
  const pki = path.join(dir, 'pki');
  // An ordinary user: authorization goes through RBAC, not the system:masters shortcut.
  const ca = readSigner(path.join(pki, 'ca.pem'), path.join(pki, 'ca-key.pem'));
  const userKey = await generatePrivateKey();
  const userCert = await issueCertificate(templateFromProfile(KUBERNETES_PROFILE, { subject: { CN: 'bench-writer', O: ['bench'] }, publicKey: userKey, nowMs: Date.now() }), ca);
  const db = path.join(dir, 'state.db');
  const secure: string[] = [];
  const insecure: string[] = [];
  for (let i = 0; i < REPLICAS; i++) {
    const [sp, ip] = [await freePort(), await freePort()];
    procs.push(
        startProcess(`apiserver-${i}`, BIN.apiserver, [
          '--bind-address=127.0.0.1',
          `--secure-port=${sp}`,
          `--insecure-port=${ip}`,
          `--datastore-endpoint=sqlite://${db}`,
          `--hostname-override=apiserver-${i}`,
          `--tls-cert-file=${path.join(pki, 'apiserver.pem')}`,
          `--tls-private-key-file=${path.join(pki, 'apiserver-key.pem')}`,
          `--client-ca-file=${path.join(pki, 'ca.pem')}`,
          `--service-account-key-file=${path.join(pki, 'sa.pub')}`,
          `--service-account-signing-key-file=${path.join(pki, 'sa.key')}`,
          '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
          '--authorization-mode=Node,RBAC',
          '--max-requests-inflight=0',
          '--max-mutating-requests-inflight=0',
        ]),
    );
    secure.push(`https://127.0.0.1:${sp}`);
    insecure.push(`http://127.0.0.1:${ip}`);
  }
  const caPem = readFileSync(path.join(pki, 'ca.pem'));
  const user: Target = { urls: secure, dispatcher: new Agent({ connections: 2048, connect: { ca: caPem, cert: certificatePem(userCert), key: privateKeyPem(userKey) } }) };
  const plain: Target = { urls: insecure, dispatcher: new Agent({ connections: 2048 }) };
  for (const url of insecure) {
    await waitFor(url, async () => {
      const r = await request(`${url}/readyz`, { dispatcher: plain.dispatcher });
      await r.body.text();
      return r.statusCode === 200;
    }, 60_000);
  }
  // A Role of its own (edit's rules arrive only through the controller manager's aggregation, not running here).
  const rbac = `${insecure[0]}/apis/rbac.authorization.k8s.io/v1/namespaces/default`;
  const role = { metadata: { name: 'configmap-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list'] }] };
  const binding = { metadata: { name: 'bench-writer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bench-writer' }] };
  for (const [what, code] of [['Role', await post(plain, `${rbac}/roles`, JSON.stringify(role))], ['RoleBinding', await post(plain, `${rbac}/rolebindings`, JSON.stringify(binding))]] as const) {
    if (code !== 201) throw new Error(`creating the ${what}: HTTP ${code}`);
  }
  // Every replica must see the binding (and the aggregated `edit` rules) before the timed phases.
  for (const url of secure) await waitFor(url, async () => (await post(user, `${url}/api/v1/namespaces/default/configmaps`, JSON.stringify({ metadata: { generateName: 'warm-' } }))) === 201, 30_000);
  // Untimed: every client opens its connections (TLS handshakes, the x509 verdict cache) before the rounds.
  await writes(user, 2, 'warm-s');
  await writes(plain, 2, 'warm-p');
  const ratios: number[] = [];
  for (let r = 0; r < flags.rounds; r++) {
    const s = await writes(user, flags.seconds, `s${r}`);
    const p = await writes(plain, flags.seconds, `p${r}`);
    ratios.push(s / p);
    console.log(`round ${r + 1}: HTTPS + x509 + RBAC + admission ${s.toFixed(0)} creates/s, --insecure-port ${p.toFixed(0)} creates/s, ratio ${(s / p).toFixed(2)}`);
  }
  console.log(`secured ÷ insecure, median of ${ratios.length}: ${median(ratios).toFixed(2)} (goal ≥ 0.7)`);
});

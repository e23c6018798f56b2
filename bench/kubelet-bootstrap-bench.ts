// TLS bootstrap of many workers at once (issue 11): a secured lab (`kemu up --workers 0`: the bootstrap token,
// its ClusterRoleBindings, DIR/bootstrap-kubelet.kubeconfig; the controller-manager's csrapproving and csrsigning
// with the lab CA), then ONE kubelet process emulating --workers nodes with --bootstrap-kubeconfig, each node
// bootstrapping its own identity (its own node-csr-…). Prints the time from the kubelet's start to all nodes
// Ready, to all CSRs approved and to all issued, approvals/s and issues/s, and the kubelet's RSS.
// usage: npm run bench -- kubelet-bootstrap [--workers 100] (--help lists the flags)
import fs from 'node:fs';
import path from 'node:path';
import { R, SIGNER_KUBE_APISERVER_CLIENT_KUBELET, type CertificateSigningRequest, type Lease, type Node } from '@kemu/api';
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { labAdminClient } from '@kemu/kemu';
import { startLab, type Lab } from '../test/lab/lab.ts';
import { atLeast, benchFlags } from './lib/flags.ts';
import { observe } from './lib/observe.ts';
import { runBench } from './lib/workdir.ts';

const flags = benchFlags(
  'kubelet-bootstrap',
  {
    workers: { type: 'int', default: 100, usage: 'nodes the one kubelet process emulates (its --node-count), each bootstrapping its own certificate' },
    apiservers: { type: 'int', default: 1, usage: 'kube-apiservers in the lab' },
    'controller-managers': { type: 'int', default: 1, usage: 'kube-controller-managers in the lab (one leads)' },
    timeout: { type: 'float', default: 300, usage: 'seconds to wait for every node to be Ready before failing' },
  },
  (f) => atLeast(f, 1, ['workers', 'apiservers', 'controller-managers']) ?? atLeast(f, 0, ['timeout'], true),
);
const N = flags.workers;

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const secs = (ms: number): number => +(ms / 1000).toFixed(2);

/** Time of the CSRs' own timestamps (second resolution), ms since the epoch. */
const stamp = (s: string | undefined): number | undefined => (s ? Date.parse(s) : undefined);

interface CsrSeen {
  created?: number;
  approved?: number;
  issued?: number;
  /** creationTimestamp and the Approved condition's lastUpdateTime, as the server recorded them. */
  createdStamp?: number;
  approvedStamp?: number;
}

await runBench('kubelet-bootstrap', async (work) => {
  const starting = startLab({ workers: 0, apiservers: flags.apiservers, controllerManagers: flags['controller-managers'], schedulers: 1 });
  work.defer(async () => (await starting).down());
  const lab: Lab = await starting;
  const tLab = performance.now();
  await lab.waitRunning(undefined, 120_000);
  const bootstrapKubeconfig = path.join(lab.dir, 'bootstrap-kubelet.kubeconfig');
  await waitFor('DIR/bootstrap-kubelet.kubeconfig', () => fs.existsSync(bootstrapKubeconfig), 60_000, 100);
  const admin = labAdminClient(lab.dir);
  // The approver and signer act only once a controller-manager leads: the timed part starts after that.
  await waitFor('a kube-controller-manager leader', async () => Boolean((await admin.get<Lease>(R.leases, 'kube-system', 'kube-controller-manager')).spec?.holderIdentity), 60_000, 200);
  console.log(`lab up (${flags.apiservers} apiserver, ${flags['controller-managers']} controller-manager, 0 workers) in ${secs(performance.now() - tLab)} s`);

  const csrs = new Map<string, CsrSeen>();
  const ready = new Map<string, number>();
  const stop = new AbortController();
  work.defer(() => stop.abort());
  const watching = [
    observe<CertificateSigningRequest>(admin, R.certificatesigningrequests, stop.signal, (csr, at) => {
      if (csr.spec?.signerName !== SIGNER_KUBE_APISERVER_CLIENT_KUBELET) return;
      const name = csr.metadata.name ?? '';
      const s = csrs.get(name) ?? {};
      s.created ??= at;
      s.createdStamp ??= stamp(csr.metadata.creationTimestamp);
      const approved = csr.status?.conditions?.find((c) => c.type === 'Approved' && c.status === 'True');
      if (approved) {
        s.approved ??= at;
        s.approvedStamp ??= stamp(approved.lastUpdateTime);
      }
      if (csr.status?.certificate) s.issued ??= at;
      csrs.set(name, s);
    }),
    observe<Node>(admin, R.nodes, stop.signal, (node, at) => {
      const name = node.metadata.name ?? '';
      if (!ready.has(name) && node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ready.set(name, at);
    }),
  ];
  const tmp = fs.mkdtempSync(path.join(work.dir, 'kubelet-'));
  const t0 = performance.now();
  const kubelet = startProcess('kubelet', BIN.kubelet, [
    `--bootstrap-kubeconfig=${bootstrapKubeconfig}`,
    `--kubeconfig=${path.join(tmp, 'kubelet.kubeconfig')}`,
    `--cert-dir=${path.join(tmp, 'pki')}`,
    `--node-count=${N}`,
    '--hostname-override=boot',
    '--secure-port=0',
  ]);
  const pid = kubelet.child.pid ?? 0;
  const count = (m: Map<string, CsrSeen>, k: keyof CsrSeen) => [...m.values()].filter((s) => s[k] !== undefined).length;
  let lastLog = t0;
  await waitFor(
    `${N} Ready nodes`,
    () => {
      if (kubelet.child.exitCode !== null) throw new Error(`the kubelet exited (${kubelet.child.exitCode}): ${kubelet.output().slice(-2000)}`);
      const now = performance.now();
      if (now - lastLog > 10_000) {
        lastLog = now;
        console.log(`  ${secs(now - t0)} s: CSRs ${csrs.size} created, ${count(csrs, 'approved')} approved, ${count(csrs, 'issued')} issued; ${ready.size} nodes Ready`);
      }
      return ready.size >= N && count(csrs, 'issued') >= N;
    },
    flags.timeout * 1000,
    50,
  );
  const tReady = performance.now();
  const rss = rssMiB(pid);
  stop.abort();
  await Promise.allSettled(watching);
  await kubelet.kill('SIGTERM');

  const all = [...csrs.values()];
  const times = (k: 'created' | 'approved' | 'issued'): number[] => all.map((s) => s[k] as number).sort((a, b) => a - b);
  const created = times('created');
  const approved = times('approved');
  const issued = times('issued');
  const first = created[0] as number;
  const allApproved = approved[approved.length - 1] as number;
  const allIssued = issued[issued.length - 1] as number;
  // Rates over the span the CSRs were coming in and being handled: first CSR seen → last one approved/issued.
  const approvalsPerS = all.length / ((allApproved - first) / 1000);
  const issuesPerS = all.length / ((allIssued - first) / 1000);
  const stamps = all.filter((s) => s.createdStamp !== undefined && s.approvedStamp !== undefined);
  const stampSpan = stamps.length ? (Math.max(...stamps.map((s) => s.approvedStamp as number)) - Math.min(...stamps.map((s) => s.createdStamp as number))) / 1000 : NaN;
  const lag = all.map((s) => (s.approved as number) - (s.created as number)).sort((a, b) => a - b);
  const p = (xs: number[], q: number) => Math.round(xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN);

  console.log(`${N} nodes, one kubelet process, ${all.length} node-csr-… CSRs (signer ${SIGNER_KUBE_APISERVER_CLIENT_KUBELET}); times from the kubelet's start, as a watch saw them:`);
  console.log(`  first CSR created         ${secs(first - t0)} s`);
  console.log(`  all ${N} CSRs created      ${secs((created[created.length - 1] as number) - t0)} s`);
  console.log(`  all ${N} CSRs approved     ${secs(allApproved - t0)} s`);
  console.log(`  all ${N} CSRs issued       ${secs(allIssued - t0)} s`);
  console.log(`  first node Ready          ${secs(Math.min(...ready.values()) - t0)} s`);
  console.log(`  all ${N} nodes Ready       ${secs(tReady - t0)} s`);
  console.log(`  approvals/s ${approvalsPerS.toFixed(1)}, issues/s ${issuesPerS.toFixed(1)} (CSRs ÷ first CSR seen → last approved / issued)`);
  console.log(`  CSR seen → Approved seen: p50 ${p(lag, 0.5)} ms, p99 ${p(lag, 0.99)} ms`);
  console.log(`  server timestamps (1 s resolution): first creationTimestamp → last Approved lastUpdateTime ${stampSpan.toFixed(0)} s`);
  console.log(`  kubelet RSS with ${N} Ready nodes: ${rss.toFixed(1)} MiB`);
  console.log(
    JSON.stringify({
      bench: 'kubelet-bootstrap',
      workers: N,
      csrs: all.length,
      firstCsrS: secs(first - t0),
      allCreatedS: secs((created[created.length - 1] as number) - t0),
      allApprovedS: secs(allApproved - t0),
      allIssuedS: secs(allIssued - t0),
      firstReadyS: secs(Math.min(...ready.values()) - t0),
      allReadyS: secs(tReady - t0),
      approvalsPerS: +approvalsPerS.toFixed(1),
      issuesPerS: +issuesPerS.toFixed(1),
      approveLagP50Ms: p(lag, 0.5),
      approveLagP99Ms: p(lag, 0.99),
      serverStampSpanS: stampSpan,
      kubeletRssMiB: +rss.toFixed(1),
      source: 'watch',
    }),
  );
});

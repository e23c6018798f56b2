// Each emulated node's own API identity. Without --bootstrap-kubeconfig every node shares the --kubeconfig
// client (as before). With it, each node gets a client with its own certificate (system:node:<name>): the one in
// --kubeconfig when it is still valid (a single node), the stored kubelet-client-current.pem (several nodes keep
// theirs in <cert-dir>/<node>/), or a new one from TLS bootstrapping. Bootstrapping failures (a bad token: 401) are
// logged with the kubelet's message and retried with back-off, where a real kubelet exits and systemd restarts
// it. With --rotate-certificates each node's certificate is rotated by its own CertificateManager.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SIGNER_KUBE_APISERVER_CLIENT_KUBELET } from '@kemu/api';
import type { Clock, Logger } from '@kemu/base';
import { RestClient, loadClientConfig, type ClientConfig } from '@kemu/client';
import { parseCertificates } from '@kemu/pki';
import { Semaphore } from '../node/agent.ts';
import type { KubeletFlags } from '../options.ts';
import type { TimerQueue } from '../timers.ts';
import { clientConfigStillValid, requestNodeClientCertificate, writeKubeconfigFromBootstrapping } from './bootstrap.ts';
import { clientUsages, nodeSubject } from './identity.ts';
import { CertificateManager } from './manager.ts';
import { CertificateFileStore, type StoredPair } from './store.ts';

export interface NodeClientsOptions {
  flags: KubeletFlags;
  names: readonly string[];
  logger: Logger;
  clock: Clock;
  timers: TimerQueue;
  userAgent: string;
  signal: AbortSignal;
  /** First wait after a failed bootstrap (default 1 s, doubling up to 30 s). */
  retryMs?: number;
  /** Where each node's CertificateManager goes once the node has its certificate (the caller stops them). */
  managers: CertificateManager[];
}

export interface NodeClients {
  /**
   * Each node's client, resolved when that node has its certificate: nodes start one by one as their CSRs are
   * issued, as N separate kubelets would. Rejects only when the signal aborts.
   */
  clients: Map<string, Promise<RestClient>>;
  /** Resolves when every node has its client (the bootstrap client is closed then, unless rotation needs it). */
  done: Promise<void>;
}

/** Where a node's certificates live: --cert-dir itself for a single node, <cert-dir>/<node> for several. */
export function nodeCertDir(certDir: string, name: string, single: boolean): string {
  return single ? certDir : path.join(certDir, name);
}

function pairOf(cfg: ClientConfig): StoredPair {
  const certPem = cfg.certData?.toString('utf8') ?? '';
  return { certPem, keyPem: cfg.keyData?.toString('utf8') ?? '', cert: parseCertificates(certPem)[0]! };
}

const stillValid = (p: StoredPair | undefined, now: number): p is StoredPair => p !== undefined && p.cert.notAfter.getTime() > now;

export async function bootstrapNodeClients(o: NodeClientsOptions): Promise<NodeClients> {
  const f = o.flags;
  const single = o.names.length === 1;
  const limits = { qps: f['kube-api-qps'], burst: f['kube-api-burst'], userAgent: o.userAgent };
  const master = f.master || undefined;
  let bootstrapConfig: ClientConfig;
  try {
    // Shared by the nodes while they bootstrap: each real kubelet would have its own, so N times the rate.
    bootstrapConfig = loadClientConfig({ kubeconfig: f['bootstrap-kubeconfig'], master, ...limits, qps: limits.qps * o.names.length, burst: limits.burst * o.names.length });
  } catch (e) {
    throw new Error(`unable to load bootstrap kubeconfig: ${(e as Error).message}`);
  }
  const bootstrap = new RestClient(bootstrapConfig, { logger: o.logger, maxConnections: 8 });
  const clients = new Map<string, Promise<RestClient>>();
  const gate = new Semaphore(64);

  const credentials = async (name: string): Promise<{ base: ClientConfig; pair: StoredPair; store: CertificateFileStore }> => {
    const store = new CertificateFileStore(nodeCertDir(f['cert-dir'], name, single), 'kubelet-client');
    const now = o.clock.now();
    if (single && f.kubeconfig && fs.existsSync(f.kubeconfig)) {
      let cfg: ClientConfig | undefined;
      try {
        cfg = loadClientConfig({ kubeconfig: f.kubeconfig, master, ...limits });
      } catch (e) {
        o.logger.error(`unable to read existing bootstrap client config from ${f.kubeconfig}: ${(e as Error).message}`);
      }
      if (cfg && clientConfigStillValid(cfg, now)) {
        o.logger.debug({ path: f.kubeconfig }, 'Kubeconfig exists and is valid, skipping bootstrap');
        // With rotation the store's newer certificate wins over the one the kubeconfig names.
        const stored = f['rotate-certificates'] ? store.current() : undefined;
        return { base: cfg, pair: stillValid(stored, now) ? stored : pairOf(cfg), store };
      }
    }
    const stored = store.current();
    if (!single && stillValid(stored, now)) return { base: bootstrapConfig, pair: stored, store };
    o.logger.debug({ node: name }, 'Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file');
    let wait = o.retryMs ?? 1000;
    for (;;) {
      o.signal.throwIfAborted();
      try {
        const pair = await requestNodeClientCertificate(name, store, bootstrap, o.logger, o.signal);
        if (single && f.kubeconfig) writeKubeconfigFromBootstrapping(f.kubeconfig, bootstrapConfig, store.currentPath());
        return { base: bootstrapConfig, pair, store };
      } catch (e) {
        if (o.signal.aborted) throw e;
        o.logger.error({ node: name, err: `failed to run Kubelet: ${(e as Error).message}` }, 'command failed');
        await sleep(wait * (1 + 0.2 * Math.random()), undefined, { signal: o.signal });
        wait = Math.min(wait * 2, 30_000);
      }
    }
  };

  const nodeClient = async (name: string, index: number): Promise<RestClient> => {
      await gate.acquire();
      let got;
      try {
        got = await credentials(name);
      } finally {
        gate.release();
      }
      const { base, pair, store } = got;
      const config: ClientConfig = { server: base.server, ...limits };
      if (base.caData) config.caData = base.caData;
      if (base.insecureSkipTLSVerify) config.insecureSkipTLSVerify = true;
      config.certData = Buffer.from(pair.certPem);
      config.keyData = Buffer.from(pair.keyPem);
      // The first node's client also carries the process' shared pod and node watches.
      const client = new RestClient(config, { logger: o.logger, maxConnections: single ? 12 : index === 0 ? 8 : 2 });
      if (f['rotate-certificates']) {
        const manager = new CertificateManager(pair, {
          signerName: SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
          subject: nodeSubject(name),
          usages: clientUsages,
          store,
          // manager.go's clientsetFn: the node's certificate while valid, else the bootstrap credentials.
          client: (valid) => (valid ? client : bootstrap),
          onRotated: (p) => client.setClientCertificate(p.certPem, p.keyPem),
          timers: o.timers,
          clock: o.clock,
          logger: o.logger,
        });
        o.managers.push(manager);
      }
      return client;
  };
  o.names.forEach((name, index) => {
    const c = nodeClient(name, index);
    c.catch(() => undefined); // the caller sees the rejection through `clients` or `done`
    clients.set(name, c);
  });
  const done = Promise.all(clients.values()).then(async () => {
    if (!f['rotate-certificates']) await bootstrap.close();
  });
  done.catch(() => undefined);
  return { clients, done };
}

/**
 * --rotate-certificates without bootstrapping (the kubelet's certificate manager seeded with --kubeconfig's
 * certificate): a valid kubelet-client-current.pem in --cert-dir wins over it, and rotations are stored there.
 * undefined when the client has no client certificate.
 */
export function rotatingClient(client: RestClient, nodeName: string, o: { certDir: string; timers: TimerQueue; clock: Clock; logger: Logger }): CertificateManager | undefined {
  const cfg = client.config;
  if (!cfg.certData || !cfg.keyData) return undefined;
  const store = new CertificateFileStore(o.certDir, 'kubelet-client');
  const stored = store.current();
  let pair: StoredPair;
  if (stillValid(stored, o.clock.now())) {
    pair = stored;
    client.setClientCertificate(pair.certPem, pair.keyPem);
  } else {
    pair = pairOf(cfg);
  }
  return new CertificateManager(pair, {
    signerName: SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
    subject: nodeSubject(nodeName),
    usages: clientUsages,
    store,
    client: () => client,
    onRotated: (p) => client.setClientCertificate(p.certPem, p.keyPem),
    timers: o.timers,
    clock: o.clock,
    logger: o.logger,
  });
}

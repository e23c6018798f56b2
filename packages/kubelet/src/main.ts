// kubelet (emulated): parses flags, connects to the apiserver, runs --node-count emulated nodes, serves its API,
// /healthz and /metrics on --secure-port and an open /healthz on --healthz-port, and stops on SIGTERM/SIGINT
// (killing it is a node failure).
import fs from 'node:fs';
import { Gauge } from 'prom-client';
import { RestClient, kubeletSecureServing, loadClientConfig } from '@kemu/client';
import { createLogger, type HealthRoutes, type HealthUpgrade, type HealthServer, loggingFormatFlag, newMetricsRegistry, parseCommandLine, realClock, startHealthServer } from '@kemu/base';
import { FLAGS, resolveOptions, type KubeletOptions } from './options.ts';
import { Kubelet } from './kubelet.ts';
import { KUBELET_VERSION, nodeIdentities, type NodeIdentity } from './node/status.ts';
import { TimerQueue } from './timers.ts';
import { bootstrapNodeClients, rotatingClient } from './certificate/node-clients.ts';
import { servingCertificate } from './certificate/serving.ts';
import type { CertificateManager } from './certificate/manager.ts';
import { capYoungGeneration } from './heap.ts';
import { deferredKubeApi, type KubeApi } from './api.ts';
import { kubeletRoutes, podNodeOf } from './server/container-logs.ts';
import { podStreamNodeOf, podStreamRoutes, podStreamUpgrades } from './server/pod-streams.ts';
import { configzRoutes } from './server/configz.ts';
import { startKubeletHealthz } from './server/healthz.ts';
import { resourceMetricsRoutes } from './server/resource-metrics.ts';
import { NodeStatsCollector } from './usage/node-stats.ts';
import { streamingRoutes, streamingUpgrade, streamNodeOf } from './server/streaming.ts';
import type { KubeProxy } from './proxy/kube-proxy.ts';
import type { ClientPod } from './proxy/cluster-network.ts';
import { nodePortAddresses } from './proxy/flags.ts';
import type { Pod } from '@kemu/api';

const PROGRAM = 'kubelet';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const { _: positional, ...flags } = parseCommandLine(PROGRAM, FLAGS);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  let opts: KubeletOptions;
  try {
    opts = resolveOptions(flags);
  } catch (e) {
    fail((e as Error).message, 1);
  }
  const logger = createLogger(PROGRAM, flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });
  const n = flags['node-count'];
  if (n > 1) capYoungGeneration(Number(process.env.KEMU_KUBELET_YOUNG_GEN_MB ?? 8));
  const userAgent = `${PROGRAM}/${KUBELET_VERSION} (${process.platform}/${process.arch}) kemu`;
  const ids = nodeIdentities(opts.hostname, n, flags['node-ip'], flags['pod-cidr']);
  const first = ids[0] as NodeIdentity;
  const timers = new TimerQueue(realClock);
  const managers: CertificateManager[] = [];
  let kubelet: Kubelet | undefined;
  const stopping = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping.signal.aborted) return;
    logger.info({ signal: sig }, 'Received termination signal, shutting down');
    stopping.abort(new Error(`received ${sig}`));
    for (const m of managers) m.stop();
    kubelet?.stop();
    timers.stop();
    setTimeout(() => process.exit(0), 100).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  let client: RestClient;
  let nodeClients: Map<string, KubeApi> | undefined;
  if (flags['bootstrap-kubeconfig']) {
    // TLS bootstrapping: every node its own certificate and client (certificate/node-clients.ts). The first
    // node's client also carries the shared watches, so the process waits for it; the others start at once and
    // their API calls wait for their own certificates.
    try {
      const got = await bootstrapNodeClients({ flags, names: ids.map((i) => i.name), logger, clock: realClock, timers, userAgent, signal: stopping.signal, managers });
      client = await (got.clients.get(first.name) as Promise<RestClient>);
      nodeClients = new Map([...got.clients].map(([name, c]) => [name, deferredKubeApi(c)]));
    } catch (e) {
      if (stopping.signal.aborted) return;
      fail((e as Error).message, 1);
    }
  } else {
    let config;
    try {
      // Each real kubelet has its own client: N emulated nodes get N times the QPS.
      config = loadClientConfig({
        kubeconfig: flags.kubeconfig || undefined,
        master: flags.master || undefined,
        qps: flags['kube-api-qps'] * n,
        burst: flags['kube-api-burst'] * n,
        userAgent,
      });
    } catch (e) {
      fail(`invalid configuration: ${(e as Error).message}`, 1);
    }
    // One connection pool for all nodes: a few dozen keep-alive connections carry every heartbeat (sockets
    // per node would cost more than the nodes themselves).
    client = new RestClient(config, { logger, maxConnections: Math.min(64, 8 + 4 * n) });
    const rotation = flags['rotate-certificates'] && n === 1 ? rotatingClient(client, first.name, { certDir: flags['cert-dir'], timers, clock: realClock, logger }) : undefined;
    if (rotation) managers.push(rotation);
  }
  // The emulated kube-proxy, once loaded (below): the network a container's own wget/curl reach.
  let proxy: KubeProxy | undefined;
  const live = { now: () => realClock.now(), network: (c: ClientPod) => proxy?.network.forPod(c) };
  kubelet = new Kubelet(opts, { client, clock: realClock, logger, timers, live, ...(nodeClients ? { nodeClients } : {}) });
  const running = kubelet;

  const registry = newMetricsRegistry();
  const nodesGauge = new Gauge({ name: 'kubelet_emulated_nodes', help: 'Number of nodes this process emulates.', registers: [registry] });
  nodesGauge.set(n);
  new Gauge({
    name: 'kubelet_running_pods',
    help: 'Number of pods the emulated nodes of this process hold.',
    registers: [registry],
    collect() {
      let pods = 0;
      for (const a of running.agents.values()) pods += a.podCount();
      this.set(pods);
    },
  });
  // The emulated kube-proxy (proxy/): Services and EndpointSlices for the traffic of this process' pods.
  let nodePortAddrs: string[] = [];
  try {
    nodePortAddrs = nodePortAddresses(flags['nodeport-addresses'], first.ip);
  } catch (e) {
    fail(`invalid configuration: ${(e as Error).message}`, 1);
  }
  // Loaded once the kubelet is under way, so its modules do not delay registration (a short-lived client certificate
  // must be rotated before it expires); until then exec sessions have no network.
  let proxyClient = client;
  if (flags['proxy-kubeconfig']) {
    try {
      proxyClient = new RestClient(loadClientConfig({ kubeconfig: flags['proxy-kubeconfig'], userAgent: `${userAgent} kube-proxy` }), { logger, maxConnections: 4 });
    } catch (e) {
      fail(`invalid configuration: --proxy-kubeconfig: ${(e as Error).message}`, 1);
    }
  }
  const startProxy = () =>
    import('./proxy/kube-proxy.ts').then(({ KubeProxy }) => {
      proxy = new KubeProxy({ client: proxyClient, findPod: (ns, name) => running.findPod(ns, name), clock: realClock, logger, registry, nodeName: first.name, nodePortAddresses: nodePortAddrs, podNetwork: { address: first.ip, port: flags['pod-network-port'] } });
      return proxy.start(stopping.signal);
    });
  // Bad serving or authentication flags stop the kubelet, as Kubernetes' does.
  const nodeName = first.name;
  // --rotate-server-certificates: the first node's kubelet-serving certificate (the process serves one port).
  const servingRotation = flags['rotate-server-certificates'] ? servingCertificate(flags, first, n === 1, client, { timers, clock: realClock, logger }) : undefined;
  const nodeFor = (path: string) => {
    const findPod = (ns: string, name: string) => running.findPod(ns, name);
    return podNodeOf(path, findPod) ?? streamNodeOf(path, findPod) ?? podStreamNodeOf(path, findPod);
  };
  const serving = await kubeletSecureServing(flags, { nodeName, hostname: opts.hostname, client, logger, nodeFor, ...(servingRotation?.current ? { servingCert: servingRotation.current } : {}) }).catch((e: unknown) =>
    fail((e as Error).message, 1),
  );
  let health: HealthServer | undefined;
  try {
    // The kubelet API (server/): /containerLogs for the pods of every node this process emulates.
    const apiDeps = { findPod: (ns: string, name: string) => running.findPod(ns, name), clock: realClock, logger, network: (pod: Pod) => proxy?.networkFor(pod) };
    const logRoutes = kubeletRoutes(apiDeps);
    // /exec and /attach (server/streaming.ts): WebSocket upgrades, and their refusals without one;
    // /portForward, kemu's pod-port proxy and /pods (server/pod-streams.ts).
    const execRoutes = streamingRoutes(apiDeps);
    const podRoutes = podStreamRoutes({ ...apiDeps, listPods: () => [...running.agents.values()].flatMap((a) => a.pods()) });
    // /stats/summary and /metrics/resource (server/resource-metrics.ts): each node's emulated usage.
    const started = realClock.now();
    // Requests the kube-proxy delivered to the pods add to their CPU (usage/request-cost.ts).
    const traffic = { source: () => proxy?.traffic, windowMs: flags['cpu-usage-window'] };
    const collectors = [...running.agents.values()].map((a) => ({ ip: a.id.ip, stats: new NodeStatsCollector(a, started, traffic) }));
    const usageRoutes = resourceMetricsRoutes({ nodes: () => collectors, now: () => realClock.now() });
    // /configz (server/configz.ts): the KubeletConfiguration these flags make.
    const configz = configzRoutes(flags);
    const routes: HealthRoutes = async (req, res, path) =>
      (await logRoutes(req, res, path)) || (await execRoutes(req, res, path)) || (await usageRoutes(req, res, path)) || (await configz(req, res, path)) || podRoutes(req, res, path);
    const execUpgrade = streamingUpgrade(apiDeps);
    const podUpgrade = podStreamUpgrades(apiDeps);
    const upgrade: HealthUpgrade = async (req, socket, head, path) => (await execUpgrade(req, socket, head, path)) || podUpgrade(req, socket, head, path);
    health = await startHealthServer({ bindAddress: flags['bind-address'], port: flags['secure-port'], checks: { syncloop: () => true }, registry, routes, upgrade, ...serving });
    if (health) logger.info({ port: health.port }, 'Serving healthz and metrics');
  } catch (e) {
    // Several kubelets on one host would fight over 10250: keep running without the endpoint.
    logger.error({ port: flags['secure-port'], err: String(e) }, 'Failed to start the health server; continuing without it');
  }

  // The unauthenticated health endpoint supervisors probe (--healthz-bind-address:--healthz-port).
  startKubeletHealthz(flags, logger);

  // An issued serving certificate is served to new connections from then on.
  if (servingRotation) managers.push(servingRotation.manager((p) => serving && health?.setTls?.({ ...serving.tls, cert: p.certPem, key: p.keyPem })));
  for (const m of managers) m.start();
  const started = kubelet.start(stopping.signal);
  void startProxy().catch((e: unknown) => logger.error({ err: String(e) }, 'kube-proxy failed to start'));
  await started;
}

main().catch((e: unknown) => {
  fs.writeSync(2, `Error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

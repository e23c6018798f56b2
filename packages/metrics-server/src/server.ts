// metrics-server put together from its flags: Node and Pod informers through the kubeconfig's client, a scrape of
// every node each --metric-resolution into the storage, and the HTTPS port (--secure-port) serving the metrics API,
// health and /metrics behind delegated authentication and authorization. kemu has no in-cluster config, so the
// delegated authentication/authorization kubeconfigs default to --kubeconfig (metrics-server in a Pod uses its
// ServiceAccount for both, as for everything else).
import fs from 'node:fs';
import { R, type Node, type Pod } from '@kemu/api';
import { newMetricsRegistry, startHealthServer, type HealthServer, type Logger } from '@kemu/base';
import { RestClient, SharedInformerFactory, loadClientConfig, secureServing } from '@kemu/client';
import { Gauge, Histogram } from 'prom-client';
import { metricsRoutes, requestInfo } from './api.ts';
import { healthRoutes } from './health.ts';
import type { MetricsServerFlags } from './options.ts';
import { scrapeNodes, type KubeletClientOptions } from './scraper.ts';
import { parseLabelSelector } from './selector.ts';
import { MetricsStorage } from './storage.ts';

export interface RunningMetricsServer {
  port: number;
  /** Scrapes now (tests; the loop scrapes every resolution by itself). */
  scrapeOnce(): Promise<void>;
  close(): Promise<void>;
}

const USER_AGENT = `metrics-server/v0.7.2 (${process.platform}/${process.arch}) kemu`;

function readFile(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`unable to read ${what} ${file}: ${(e as Error).message}`);
  }
}

export async function startMetricsServer(f: MetricsServerFlags, logger: Logger): Promise<RunningMetricsServer> {
  if (!f.kubeconfig) throw new Error('unable to construct lister client config: unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const config = loadClientConfig({ kubeconfig: f.kubeconfig, userAgent: USER_AGENT });
  const client = new RestClient(config, { logger });
  const kubelet: KubeletClientOptions = {
    preferredAddressTypes: f['kubelet-preferred-address-types'].split(',').map((s) => s.trim()).filter((s) => s !== ''),
    port: f['kubelet-port'],
    useNodeStatusPort: f['kubelet-use-node-status-port'],
    insecureTls: f['kubelet-insecure-tls'],
    timeoutMs: f['kubelet-request-timeout'],
    ...(f['kubelet-certificate-authority'] ? { ca: readFile(f['kubelet-certificate-authority'], 'kubelet CA') } : config.caData ? { ca: config.caData } : {}),
    ...(f['kubelet-client-certificate']
      ? { cert: readFile(f['kubelet-client-certificate'], 'kubelet client certificate'), key: readFile(f['kubelet-client-key'], 'kubelet client key') }
      : config.certData && config.keyData
        ? { cert: config.certData, key: config.keyData }
        : {}),
    ...(config.token ? { token: config.token } : {}),
  };
  const nodeSelector = parseLabelSelector(f['node-selector'] || null);

  const serving = await secureServing(
    { ...f, 'authentication-kubeconfig': f['authentication-kubeconfig'] || f.kubeconfig, 'authorization-kubeconfig': f['authorization-kubeconfig'] || f.kubeconfig },
    { pairName: 'apiserver', logger, userAgent: USER_AGENT, requestInfo },
  );

  const factory = new SharedInformerFactory(client, { logger });
  const nodeInformer = factory.informerFor<Node>(R.nodes);
  const podInformer = factory.informerFor<Pod>(R.pods);
  const nodes = () => nodeInformer.store.list().filter((n) => nodeSelector(n.metadata.labels));
  const storage = new MetricsStorage(f['metric-resolution']);
  const resolution = f['metric-resolution'];

  const registry = newMetricsRegistry();
  const duration = new Histogram({
    name: 'metrics_server_manager_tick_duration_seconds',
    help: '[ALPHA] The total time spent collecting and storing metrics in seconds.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const scrapeErrors = new Gauge({ name: 'metrics_server_kubelet_request_errors', help: '[ALPHA] Number of nodes whose last scrape failed.', registers: [registry] });
  const storedPods = new Gauge({ name: 'metrics_server_storage_points', help: '[ALPHA] Number of metrics points stored.', labelNames: ['type'], registers: [registry] });

  let lastTickEnd = 0;
  let started = Date.now();
  let stored = false;
  const scrapeOnce = async () => {
    const t0 = Date.now();
    const list = nodes();
    const batches = await scrapeNodes(list, kubelet, logger);
    storage.store(batches);
    stored = true;
    lastTickEnd = Date.now();
    duration.observe((lastTickEnd - t0) / 1000);
    scrapeErrors.set(list.length - batches.size);
    storedPods.set({ type: 'node' }, [...batches.values()].filter((b) => b.node).length);
    storedPods.set({ type: 'container' }, [...batches.values()].reduce((n, b) => n + [...b.pods.values()].reduce((m, c) => m + c.size, 0), 0));
  };

  const synced = () => nodeInformer.hasSynced() && podInformer.hasSynced();
  const timely = () => Date.now() - (lastTickEnd || started) <= resolution * 1.5 + f['kubelet-request-timeout'];
  const api = metricsRoutes({ nodes, pods: () => podInformer.store.list(), storage, now: Date.now });
  const health = healthRoutes({
    livez: [['metric-collection-timely', timely]],
    readyz: [['metric-collection-timely', timely], ['metadata-informer-sync', synced], ['metric-storage-ready', () => stored]],
  });
  let server: HealthServer | undefined;
  try {
    server = await startHealthServer({
      bindAddress: f['bind-address'],
      port: f['secure-port'],
      checks: {},
      registry,
      ...(serving ? { tls: serving.tls, guard: serving.guard } : {}),
      routes: (req, res, path) => health(req, res, path) || api(req, res, path),
    });
  } catch (e) {
    await client.close();
    throw new Error(`failed to create listener: ${(e as Error).message}`);
  }
  if (!server) {
    await client.close();
    throw new Error('--secure-port 0 turns off the metrics API: metrics-server needs a port');
  }
  const stopFollowing = serving?.follow?.(server) ?? (() => undefined);

  const stop = new AbortController();
  factory.start(stop.signal);
  started = Date.now();
  // The loop: wait for the informers, then one scrape per resolution (ticks do not overlap).
  void (async () => {
    if (!(await factory.waitForCacheSync(stop.signal))) return;
    while (!stop.signal.aborted) {
      const t0 = Date.now();
      await scrapeOnce().catch((e: unknown) => logger.error({ err: (e as Error).message }, 'Failed to scrape nodes'));
      await new Promise((r) => setTimeout(r, Math.max(0, resolution - (Date.now() - t0))).unref?.());
    }
  })();

  return {
    port: server.port,
    scrapeOnce,
    async close() {
      stop.abort();
      stopFollowing();
      await server.close();
      await client.close();
    },
  };
}

// cluster-autoscaler: reads its flags and --cloud-config, starts pod and node informers at once, and scans every
// --scan-interval only while holding the kube-system/cluster-autoscaler Lease. Losing the Lease exits 1; SIGTERM
// stops the loop and releases the Lease. A bad flag or cloud config exits 1 with the reason.
import fs from 'node:fs';
import os from 'node:os';
import type { KubeObject, Node, Pod } from '@kemu/api';
import { R } from '@kemu/api';
import { EventRecorder, RestClient, SharedInformerFactory, leaderElectedRun, leaseOptionsFromFlags, loadClientConfig } from '@kemu/client';
import { createLogger, loggingFormatFlag, newMetricsRegistry, parseCommandLine, realClock, startHealthServer } from '@kemu/base';
import { FLAGS, parseAddress, parseNodeGroupSpec } from './options.ts';
import { parseExpanders } from './expander.ts';
import { parseCloudConfig } from './cloudprovider/kemu-config.ts';
import { KemuCloudProvider } from './cloudprovider/kemu.ts';
import { PredicateChecker } from './simulator/predicates.ts';
import { Autoscaler } from './autoscaler.ts';
import { restActuatorApi, writeStatusConfigMap } from './api.ts';

const PROGRAM = 'cluster-autoscaler';

function fail(message: string): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { _: positional, ...flags } = parseCommandLine(PROGRAM, FLAGS, argv);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`);
  const logger = createLogger(PROGRAM, flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });
  if (flags['cloud-provider'] !== 'kemu') fail(`Unknown cloud provider: ${flags['cloud-provider']} (this build has: kemu)`);
  if (!flags['cloud-config']) fail('the kemu cloud provider needs --cloud-config (written by kemu up --node-group)');
  let provider: KemuCloudProvider;
  let expanders;
  let address;
  try {
    const nodes = flags.nodes.map(parseNodeGroupSpec);
    provider = new KemuCloudProvider(parseCloudConfig(fs.readFileSync(flags['cloud-config'], 'utf8')), nodes);
    expanders = parseExpanders(flags.expander);
    address = parseAddress(flags.address);
  } catch (e) {
    fail((e as Error).message);
  }
  const threshold = flags['scale-down-utilization-threshold'];
  if (!(threshold >= 0 && threshold <= 1)) fail(`scale-down-utilization-threshold must be between 0 and 1, got ${threshold}`);
  const hostname = os.hostname();

  let clientConfig;
  try {
    clientConfig = loadClientConfig({
      kubeconfig: flags.kubeconfig || undefined,
      master: flags.kubernetes || undefined,
      userAgent: `${PROGRAM}/v1.32.0 (${process.platform}/${process.arch}) kemu`,
    });
  } catch (e) {
    fail(`invalid configuration: ${(e as Error).message}`);
  }
  const client = new RestClient(clientConfig, { logger });
  const eventClient = new RestClient(clientConfig, { logger });
  const recorder = new EventRecorder(eventClient, { component: PROGRAM }, { logger });
  const event = (obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string) => recorder.event(obj, type, reason, message);
  const registry = newMetricsRegistry();

  const factory = new SharedInformerFactory(client, { logger });
  const podInformer = factory.informerFor<Pod>(R.pods);
  const nodeInformer = factory.informerFor<Node>(R.nodes);
  const drain = { skipNodesWithSystemPods: flags['skip-nodes-with-system-pods'], skipNodesWithLocalStorage: flags['skip-nodes-with-local-storage'] };
  const scanMs = flags['scan-interval'];
  const autoscaler = new Autoscaler(
    {
      provider,
      checker: new PredicateChecker(realClock, logger),
      clock: realClock,
      logger,
      nodes: () => nodeInformer.store.list().map((n) => ({ ...n, apiVersion: 'v1', kind: 'Node' })),
      pods: () => podInformer.store.list().map((p) => ({ ...p, apiVersion: 'v1', kind: 'Pod' })),
      actuator: restActuatorApi(client, podInformer.store, drain, event),
      writeStatus: async (text) =>
        flags['write-status-configmap'] ? writeStatusConfigMap(client, flags.namespace, flags['status-config-map-name'], text, realClock.now()) : undefined,
      event,
    },
    {
      expanders,
      scaleDownEnabled: flags['scale-down-enabled'],
      delayAfterAddMs: flags['scale-down-delay-after-add'],
      delayAfterDeleteMs: flags['scale-down-delay-after-delete'] || scanMs,
      delayAfterFailureMs: flags['scale-down-delay-after-failure'],
      unneededTimeMs: flags['scale-down-unneeded-time'],
      utilizationThreshold: threshold,
      maxNodeProvisionMs: flags['max-node-provision-time'],
      maxPodEvictionMs: flags['max-pod-eviction-time'],
      evictionRetryMs: Math.min(10_000, Math.max(1000, scanMs)),
      maxGracefulTerminationSec: flags['max-graceful-termination-sec'],
      maxEmptyBulkDelete: flags['max-empty-bulk-delete'],
      maxNodesTotal: flags['max-nodes-total'],
      ...drain,
    },
  );

  const runLoop = async (signal: AbortSignal) => {
    if (!(await factory.waitForCacheSync(signal))) return;
    logger.info({ groups: provider.nodeGroups().map((g) => `${g.minSize}:${g.maxSize}:${g.id}`), expanders }, 'Caches synced; starting the autoscaler loop');
    // As the autoscaler's loop (trigger.Wait(lastRun) with lastRun the start): the first scan comes a
    // --scan-interval after taking the lead, not at once, so nodes still registering are not taken for missing.
    let last = Date.now();
    while (!signal.aborted) {
      await realClock.sleep(Math.max(0, scanMs - (Date.now() - last)), signal).catch(() => undefined);
      if (signal.aborted) break;
      last = Date.now();
      try {
        await autoscaler.runOnce();
      } catch (e) {
        logger.error({ err: (e as Error).message }, 'Failed to run the autoscaler loop');
      }
    }
  };
  const leading = leaderElectedRun({
    component: PROGRAM,
    hostname,
    logger,
    clientConfig,
    fencedClients: [client, eventClient],
    eventClient,
    leaderElect: flags['leader-elect'],
    releaseOnCancel: true,
    lease: leaseOptionsFromFlags(flags),
    metricsRegistry: registry,
    work: runLoop,
    afterWork: () => recorder.flush().catch(() => undefined),
    drainTimeoutMs: 1000,
  });

  const health = await startHealthServer({
    bindAddress: address.host,
    port: address.port,
    checks: { leaderElection: () => leading.healthCheck() },
    registry,
    // The autoscaler's own liveness endpoint, beside /healthz.
    routes: (_req, res, path) => {
      if (path !== '/health-check') return false;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
      return true;
    },
  }).catch((e: unknown) => fail(`failed to listen on ${flags.address}: ${String(e)}`));
  if (health) logger.info({ port: health.port }, 'Serving health-check and metrics');

  const informersStop = new AbortController();
  factory.start(informersStop.signal);
  await leading.start();
  informersStop.abort();
  await recorder.flush().catch(() => undefined);
  await health?.close();
  process.exit(0);
}

await main();

// kube-scheduler: reads --config (KubeSchedulerConfiguration) and flags, serves /healthz and /metrics on
// --secure-port, starts pod and node informers at once (a warm cache makes fail-over fast), and schedules
// only while holding the kube-system/kube-scheduler Lease. Losing the Lease exits 1 at once; SIGTERM stops
// the loop, lets in-flight binds finish briefly, releases the Lease and exits 0. Bad config exits 2.
import fs from 'node:fs';
import os from 'node:os';
import type { CSINode, KubeObject, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, Service, StorageClass } from '@kemu/api';
import { R } from '@kemu/api';
import { EventRecorder, RestClient, SharedInformerFactory, leaderElectedRun, loadClientConfig, secureServing, unwrapDeleted } from '@kemu/client';
import { createLogger, loggingFormatFlag, newMetricsRegistry, parseCommandLine, realClock, startHealthServer } from '@kemu/base';
import { restSchedulerClient } from './api-client.ts';
import { defaultConfiguration, ConfigError, parseConfigurationText, validateConfiguration, FrameworkError } from '@kemu/scheduler-framework';
import type { KubeSchedulerConfiguration } from '@kemu/scheduler-framework';
import { newSchedulerMetrics } from './metrics.ts';
import { FLAGS, applyFlags } from './options.ts';
import { Scheduler } from './scheduler.ts';
import { workloadSelectorLister } from './selector-lister.ts';
import { informerVolumeLister } from './volume-lister.ts';

const PROGRAM = 'kube-scheduler';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

function loadConfig(argv: string[], flags: ReturnType<typeof parseCommandLine<typeof FLAGS>>): KubeSchedulerConfiguration {
  let cfg = defaultConfiguration();
  if (flags.config) {
    let text: string;
    try {
      text = fs.readFileSync(flags.config, 'utf8');
    } catch (e) {
      fail(`failed to read config file "${flags.config}": ${(e as Error).message}`, 1);
    }
    try {
      cfg = parseConfigurationText(text);
    } catch (e) {
      if (e instanceof ConfigError) fail(`invalid KubeSchedulerConfiguration in ${flags.config}: ${e.message}`, 2);
      throw e;
    }
  }
  applyFlags(cfg, flags, argv);
  const errs = validateConfiguration(cfg);
  if (errs.length) fail(`invalid KubeSchedulerConfiguration: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`, 2);
  return cfg;
}

const asPod = (p: Pod): Pod => ({ ...p, apiVersion: 'v1', kind: 'Pod' });

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { _: positional, ...flags } = parseCommandLine(PROGRAM, FLAGS, argv);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  const cfg = loadConfig(argv, { ...flags, _: positional });
  const logger = createLogger(PROGRAM, flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });
  const hostname = flags['hostname-override'] || os.hostname();

  let clientConfig;
  try {
    clientConfig = loadClientConfig({
      kubeconfig: cfg.clientConnection.kubeconfig || undefined,
      master: flags.master || undefined,
      qps: cfg.clientConnection.qps,
      burst: cfg.clientConnection.burst,
      userAgent: `${PROGRAM}/v1.31.0 (${process.platform}/${process.arch}) kemu`,
    });
  } catch (e) {
    fail(`invalid configuration: ${(e as Error).message}`, 1);
  }
  const client = new RestClient(clientConfig, { logger });
  // Events (and leader election, in leaderElectedRun) go through clients of their own, as Kubernetes does, so
  // neither queues behind a burst of binds in the main client's rate limiter: a busy leader still renews.
  const eventClient = new RestClient(clientConfig, { logger });
  const recorders = new Map<string, EventRecorder>();
  const recorder = (name: string) => {
    let r = recorders.get(name);
    if (!r) recorders.set(name, (r = new EventRecorder(eventClient, { component: name, host: hostname }, { logger })));
    return r;
  };

  const registry = newMetricsRegistry();

  const factory = new SharedInformerFactory(client, { logger });
  const podInformer = factory.informerFor<Pod>(R.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
  const nodeInformer = factory.informerFor<Node>(R.nodes);
  const serviceInformer = factory.informerFor<Service>(R.services);
  const rsInformer = factory.informerFor<KubeObject>(R.replicasets);
  const nsInformer = factory.informerFor<Namespace>(R.namespaces);
  const pvcInformer = factory.informerFor<PersistentVolumeClaim>(R.persistentvolumeclaims);
  const pvInformer = factory.informerFor<PersistentVolume>(R.persistentvolumes);
  const scInformer = factory.informerFor<StorageClass>(R.storageclasses);
  const csiNodeInformer = factory.informerFor<CSINode>(R.csinodes);

  let scheduler: Scheduler | undefined;
  const metrics = newSchedulerMetrics(registry, () => scheduler?.queue.pendingCounts() ?? {});
  try {
    scheduler = new Scheduler({
      config: cfg,
      client: restSchedulerClient(client),
      event: (pod, type, reason, message, profile) => recorder(profile).event(asPod(pod), type, reason, message),
      clock: realClock,
      logger,
      selectorLister: workloadSelectorLister(serviceInformer.store, rsInformer.store),
      volumeLister: informerVolumeLister(client, pvcInformer.store, pvInformer.store, scInformer.store, csiNodeInformer.store),
      namespaceLabels: (ns) => nsInformer.store.get(ns)?.metadata.labels,
      currentPod: (key) => podInformer.store.get(key),
      maxInUnschedulableMs: flags['pod-max-in-unschedulable-pods-duration'],
      metrics,
    });
  } catch (e) {
    if (e instanceof FrameworkError) fail(`initializing profiles: ${e.message}`, 2);
    throw e;
  }
  const sched = scheduler;

  podInformer.addEventHandler({
    onAdd: (p) => sched.addPod(p),
    onUpdate: (a, b) => sched.updatePod(a, b),
    onDelete: (p) => sched.deletePod(unwrapDeleted(p)),
  });
  nodeInformer.addEventHandler({
    onAdd: (n) => sched.addNode(n),
    onUpdate: (a, b) => sched.updateNode(a, b),
    onDelete: (n) => sched.deleteNode(unwrapDeleted(n)),
  });

  pvcInformer.addEventHandler({ onAdd: () => sched.storageChanged('PvcAdd'), onUpdate: () => sched.storageChanged('PvcUpdate') });
  pvInformer.addEventHandler({ onAdd: () => sched.storageChanged('PvAdd'), onUpdate: () => sched.storageChanged('PvUpdate') });
  scInformer.addEventHandler({ onAdd: () => sched.storageChanged('StorageClassAdd') });
  csiNodeInformer.addEventHandler({ onAdd: () => sched.storageChanged('CSINodeAdd'), onUpdate: () => sched.storageChanged('CSINodeUpdate') });

  const runLoop = async (signal: AbortSignal) => {
    if (!(await factory.waitForCacheSync(signal))) return;
    logger.info({ profiles: [...sched.profiles.keys()] }, 'Caches synced; scheduling');
    await sched.run(signal);
  };
  const le = cfg.leaderElection;
  const leading = leaderElectedRun({
    component: PROGRAM,
    hostname,
    logger,
    clientConfig,
    fencedClients: [client, eventClient],
    eventClient,
    leaderElect: le.leaderElect,
    // kube-scheduler's leader election sets ReleaseOnCancel (cmd/kube-scheduler/app/options).
    releaseOnCancel: true,
    lease: { namespace: le.resourceNamespace, name: le.resourceName, leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs },
    metricsRegistry: registry,
    work: runLoop,
    // Give binds already sent a moment to land, then release the Lease. Binds still queued in the rate
    // limiter are dropped with the process: the next leader schedules those pods (a bind that races it
    // gets 409 and is forgotten), so waiting longer would only delay the hand-over.
    afterWork: async () => {
      const until = Date.now() + 500;
      while (sched.pendingBinds() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      // The events of the binds that landed go out while the Lease is still held: once it is released the
      // write fence refuses them (bounded by drainTimeoutMs, like the rest of the drain).
      await Promise.all([...recorders.values()].map((r) => r.flush().catch(() => undefined)));
    },
    drainTimeoutMs: 1000,
  });

  const serving = await secureServing(flags, { pairName: PROGRAM, logger, userAgent: clientConfig.userAgent ?? PROGRAM }).catch((e: unknown) =>
    fail((e as Error).message, 1),
  );
  const health = await startHealthServer({
    bindAddress: flags['bind-address'],
    port: flags['secure-port'],
    checks: { leaderElection: () => leading.healthCheck() },
    registry,
    ...serving,
  }).catch((e: unknown) => fail(`failed to listen on ${flags['bind-address']}:${flags['secure-port']}: ${String(e)}`, 1));
  if (health) logger.info({ port: health.port }, 'Serving healthz and metrics');
  const unfollow = serving?.follow?.(health);

  const informersStop = new AbortController();
  factory.start(informersStop.signal);

  await leading.start();
  informersStop.abort();
  await Promise.all([...recorders.values()].map((r) => r.flush().catch(() => undefined)));
  unfollow?.();
  await health?.close();
  process.exit(0);
}

await main();

// kube-scheduler: reads --config (KubeSchedulerConfiguration) and flags, serves /healthz and /metrics on
// --secure-port, starts pod and node informers at once (a warm cache makes fail-over fast), and schedules
// only while holding the kube-system/kube-scheduler Lease. Losing the Lease exits 1 at once; SIGTERM stops
// the loop, lets in-flight binds finish briefly, releases the Lease and exits 0. Bad config exits 2.
import fs from 'node:fs';
import os from 'node:os';
import type { KubeObject, Namespace, Node, Pod, Service } from '@kemu/api';
import { R } from '@kemu/api';
import { EventRecorder, LeaderElector, RestClient, SharedInformerFactory, leaderIdentity, loadClientConfig, type DeletedFinalStateUnknown } from '@kemu/client';
import { createLogger, newMetricsRegistry, parseCommandLine, realClock, startHealthServer } from '@kemu/base';
import { Gauge } from 'prom-client';
import { restSchedulerClient } from './api-client.ts';
import { defaultConfiguration } from './config/defaults.ts';
import { ConfigError, parseConfigurationText, validateConfiguration } from './config/load.ts';
import type { KubeSchedulerConfiguration } from './config/types.ts';
import { FrameworkError } from './framework/runtime.ts';
import { newSchedulerMetrics } from './metrics.ts';
import { FLAGS, applyFlags } from './options.ts';
import { Scheduler } from './scheduler.ts';
import { workloadSelectorLister } from './selector-lister.ts';

const PROGRAM = 'kube-scheduler';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

function fatal(msg: string): never {
  fs.writeSync(2, `${JSON.stringify({ level: 50, time: Date.now(), component: PROGRAM, msg })}\n`);
  process.exit(1);
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

/** Calls onFreeze when the event loop was stalled for longer than maxGapMs (checked every 100ms). */
function startFreezeWatchdog(maxGapMs: number, onFreeze: (gapMs: number) => void): { stop(): void } {
  let last = Date.now();
  const t = setInterval(() => {
    const now = Date.now();
    const gap = now - last;
    last = now;
    if (gap > maxGapMs) onFreeze(gap);
  }, 100);
  t.unref();
  return { stop: () => clearInterval(t) };
}

const unwrap = <T>(o: T | DeletedFinalStateUnknown<T>): T => ('deletedFinalStateUnknown' in (o as object) ? (o as DeletedFinalStateUnknown<T>).obj : (o as T));
const asPod = (p: Pod): Pod => ({ ...p, apiVersion: 'v1', kind: 'Pod' });

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { _: positional, ...flags } = parseCommandLine(PROGRAM, FLAGS, argv);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  const cfg = loadConfig(argv, { ...flags, _: positional });
  const logger = createLogger(PROGRAM, flags.v);
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
  // Events and leader election go through clients of their own (as Kubernetes does), so neither queues
  // behind a burst of binds in the main client's rate limiter: a busy leader still renews and releases.
  const eventClient = new RestClient(clientConfig, { logger });
  const electionClient = new RestClient({ ...clientConfig, userAgent: `${clientConfig.userAgent ?? PROGRAM}/leader-election` }, { logger });
  const recorders = new Map<string, EventRecorder>();
  const recorder = (name: string) => {
    let r = recorders.get(name);
    if (!r) recorders.set(name, (r = new EventRecorder(eventClient, { component: name, host: hostname }, { logger })));
    return r;
  };

  const registry = newMetricsRegistry();
  const leaderGauge = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [registry],
  });
  leaderGauge.set({ name: cfg.leaderElection.resourceName }, 0);

  const factory = new SharedInformerFactory(client, { logger });
  const podInformer = factory.informerFor<Pod>(R.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
  const nodeInformer = factory.informerFor<Node>(R.nodes);
  const serviceInformer = factory.informerFor<Service>(R.services);
  const rsInformer = factory.informerFor<KubeObject>(R.replicasets);
  const nsInformer = factory.informerFor<Namespace>(R.namespaces);

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
    onDelete: (p) => sched.deletePod(unwrap(p)),
  });
  nodeInformer.addEventHandler({
    onAdd: (n) => sched.addNode(n),
    onUpdate: (a, b) => sched.updateNode(a, b),
    onDelete: (n) => sched.deleteNode(unwrap(n)),
  });

  let elector: LeaderElector | undefined;
  const health = await startHealthServer({
    bindAddress: flags['bind-address'],
    port: flags['secure-port'],
    checks: { leaderElection: () => elector?.healthCheck() ?? true },
    registry,
  }).catch((e: unknown) => fail(`failed to listen on ${flags['bind-address']}:${flags['secure-port']}: ${String(e)}`, 1));
  if (health) logger.info({ port: health.port }, 'Serving healthz and metrics');

  const informersStop = new AbortController();
  factory.start(informersStop.signal);

  const stopping = new AbortController();
  const loopStop = new AbortController();
  let shuttingDown = false;
  let loop: Promise<void> | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal: sig }, 'Received termination signal, shutting down');
    loopStop.abort(new Error(`received ${sig}`));
    // Give binds already sent a moment to land, then release the Lease. Binds still queued in the rate
    // limiter are dropped with the process: the next leader schedules those pods (a bind that races it
    // gets 409 and is forgotten), so waiting longer would only delay the hand-over.
    const drained = (async () => {
      await loop;
      const until = Date.now() + 500;
      while (sched.pendingBinds() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    })();
    void Promise.race([drained, new Promise((r) => setTimeout(r, 1000))]).then(() => stopping.abort(new Error(`received ${sig}`)));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const runLoop = async (signal: AbortSignal) => {
    const s = AbortSignal.any([signal, loopStop.signal]);
    if (!(await factory.waitForCacheSync(s))) return;
    logger.info({ profiles: [...sched.profiles.keys()] }, 'Caches synced; scheduling');
    loop = sched.run(s);
    await loop;
  };

  if (!cfg.leaderElection.leaderElect) {
    await Promise.race([runLoop(stopping.signal), new Promise((r) => stopping.signal.addEventListener('abort', r, { once: true }))]);
    await health?.close();
    process.exit(0);
  }

  const identity = leaderIdentity(hostname);
  logger.info({ identity }, 'Attempting to acquire leader lease');
  try {
    elector = new LeaderElector({
      client: electionClient,
      namespace: cfg.leaderElection.resourceNamespace,
      name: cfg.leaderElection.resourceName,
      identity,
      leaseDurationMs: cfg.leaderElection.leaseDurationMs,
      renewDeadlineMs: cfg.leaderElection.renewDeadlineMs,
      retryPeriodMs: cfg.leaderElection.retryPeriodMs,
      releaseOnCancel: true,
      logger,
      eventRecorder: new EventRecorder(eventClient, { component: PROGRAM, host: hostname }, { logger }),
      callbacks: {
        onStartedLeading: async (signal) => {
          leaderGauge.set({ name: cfg.leaderElection.resourceName }, 1);
          logger.info({ identity }, 'Started leading');
          // A process frozen (SIGSTOP, VM pause) past its renew deadline cannot know it still leads:
          // stop before scheduling anything on a stale view.
          const watchdog = startFreezeWatchdog(cfg.leaderElection.renewDeadlineMs, () => fatal('leaderelection lost'));
          try {
            await runLoop(signal);
          } finally {
            watchdog.stop();
          }
        },
        onStoppedLeading: () => {
          leaderGauge.set({ name: cfg.leaderElection.resourceName }, 0);
          if (shuttingDown) return;
          fatal('leaderelection lost');
        },
        onNewLeader: (id) => {
          if (id !== identity) logger.info({ leader: id }, 'New leader elected');
        },
      },
    });
  } catch (e) {
    fail(`couldn't create leader elector: ${(e as Error).message}`, 1);
  }
  await elector.run(stopping.signal);
  if (!shuttingDown) fatal('leaderelection lost');
  informersStop.abort();
  await Promise.all([...recorders.values()].map((r) => r.flush().catch(() => undefined)));
  await health?.close();
  process.exit(0);
}

await main();

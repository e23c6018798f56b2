// kube-controller-manager: parses flags, serves /healthz and /metrics, wins the leader Lease and runs the
// selected controllers only while leading. Losing the Lease stops every controller at once and exits 1
// (as Kubernetes' klog.Fatalf does); SIGTERM stops the controllers, releases the Lease and exits 0.
import os from 'node:os';
import fs from 'node:fs';
import { Gauge, Registry } from 'prom-client';
import { RestClient, loadClientConfig, LeaderElector, leaderIdentity, EventRecorder } from '@kemu/client';
import { createLogger, newMetricsRegistry, parseCommandLine, startHealthServer, realClock } from '@kemu/base';
import { FLAGS, validateOptions, type ControllerManagerOptions } from './options.ts';
import { selectControllers, ControllerSelectionError } from './registry.ts';
import { runControllers } from './manager.ts';
import { startFreezeWatchdog } from './watchdog.ts';
import { controllerRegistry } from './metrics.ts';

const PROGRAM = 'kube-controller-manager';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const { _: positional, ...options } = parseCommandLine(PROGRAM, FLAGS);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  const opts: ControllerManagerOptions = options;
  const errs = validateOptions(opts);
  if (errs.length > 0) fail(errs.join('\n'), 1);
  let descriptors;
  try {
    descriptors = selectControllers(opts.controllers);
  } catch (e) {
    if (e instanceof ControllerSelectionError) fail(e.message, 1);
    throw e;
  }

  const logger = createLogger(PROGRAM, opts.v);
  const hostname = opts['hostname-override'] || os.hostname();
  let config;
  try {
    config = loadClientConfig({
      kubeconfig: opts.kubeconfig || undefined,
      master: opts.master || undefined,
      qps: opts['kube-api-qps'],
      burst: opts['kube-api-burst'],
      userAgent: `${PROGRAM}/v1.31.0 (${process.platform}/${process.arch}) kemu`,
    });
  } catch (e) {
    fail(`invalid configuration: ${(e as Error).message}`, 1);
  }
  const client = new RestClient(config, { logger });

  const registry = newMetricsRegistry();
  const leaderGauge = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [registry],
  });
  leaderGauge.set({ name: opts['leader-elect-resource-name'] }, 0);

  let elector: LeaderElector | undefined;
  const health = await startHealthServer({
    bindAddress: opts['bind-address'],
    port: opts['secure-port'],
    checks: { leaderElection: () => elector?.healthCheck() ?? true },
    registry: Registry.merge([registry, controllerRegistry]),
  }).catch((e: unknown) => fail(`failed to listen on ${opts['bind-address']}:${opts['secure-port']}: ${String(e)}`, 1));
  if (health) logger.info({ port: health.port }, 'Serving healthz and metrics');

  // Shutdown order: stop the controllers (drain) and let in-flight requests finish, then stop the elector,
  // which releases the Lease — so the next leader never overlaps with our last writes.
  const drain = new AbortController();
  const stopping = new AbortController();
  let shuttingDown = false;
  let running: Promise<void> | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal: sig }, 'Received termination signal, shutting down');
    drain.abort(new Error(`received ${sig}`));
    const drained = running ?? Promise.resolve();
    void Promise.race([drained, new Promise((r) => setTimeout(r, 2000))]).then(() => stopping.abort(new Error(`received ${sig}`)));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const run = (signal: AbortSignal) => {
    running = runControllers({ client, descriptors, options: opts, logger, clock: realClock, signal: AbortSignal.any([signal, drain.signal]), hostname });
    return running;
  };

  if (!opts['leader-elect']) {
    await run(stopping.signal);
    await health?.close();
    process.exit(0);
  }

  const identity = leaderIdentity(hostname);
  logger.info({ identity }, 'Attempting to acquire leader lease');
  elector = new LeaderElector({
    client,
    namespace: opts['leader-elect-resource-namespace'],
    name: opts['leader-elect-resource-name'],
    identity,
    leaseDurationMs: opts['leader-elect-lease-duration'],
    renewDeadlineMs: opts['leader-elect-renew-deadline'],
    retryPeriodMs: opts['leader-elect-retry-period'],
    releaseOnCancel: true,
    logger,
    eventRecorder: new EventRecorder(client, { component: PROGRAM, host: hostname }, { logger }),
    callbacks: {
      onStartedLeading: async (signal) => {
        leaderGauge.set({ name: opts['leader-elect-resource-name'] }, 1);
        logger.info({ identity }, 'Started leading');
        const watchdog = startFreezeWatchdog(opts['leader-elect-renew-deadline'], (gap) => {
          // We cannot know whether we still lead: behave as if the Lease were lost.
          fs.writeSync(2, `${JSON.stringify({ level: 50, time: Date.now(), component: PROGRAM, gapMs: gap, msg: 'leaderelection lost' })}\n`);
          process.exit(1);
        });
        try {
          await run(signal);
        } finally {
          watchdog.stop();
        }
      },
      onStoppedLeading: () => {
        leaderGauge.set({ name: opts['leader-elect-resource-name'] }, 0);
        if (shuttingDown) return;
        // The controllers' signal has already been aborted by the elector; exit before anything else runs.
        fs.writeSync(2, `${JSON.stringify({ level: 50, time: Date.now(), component: PROGRAM, msg: 'leaderelection lost' })}\n`);
        process.exit(1);
      },
      onNewLeader: (id) => {
        if (id !== identity) logger.info({ leader: id }, 'New leader elected');
      },
    },
  });
  await elector.run(stopping.signal);
  if (!shuttingDown) {
    fs.writeSync(2, `${JSON.stringify({ level: 50, time: Date.now(), component: PROGRAM, msg: 'leaderelection lost' })}\n`);
    process.exit(1);
  }
  await health?.close();
  process.exit(0);
}

await main();

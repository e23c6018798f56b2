// kube-controller-manager: parses flags, serves /healthz and /metrics, wins the leader Lease and runs the
// selected controllers only while leading. Losing the Lease stops every controller at once and exits 1
// (as Kubernetes' klog.Fatalf does); SIGTERM stops the controllers and exits 0, leaving the Lease to expire
// as Kubernetes does (--leader-elect-release-on-cancel, kemu only, releases it instead).
import os from 'node:os';
import fs from 'node:fs';
import { Registry } from 'prom-client';
import { RestClient, loadClientConfig, leaderElectedRun, leaseOptionsFromFlags, secureServing } from '@kemu/client';
import { createLogger, featureGatesError, type LoggingFormat, newMetricsRegistry, parseCommandLine, startHealthServer, realClock } from '@kemu/base';
import { FLAGS, validateOptions, type ControllerManagerOptions } from './options.ts';
import { selectControllers, ControllerSelectionError } from './registry.ts';
import { ControllerStartError, runControllers } from './manager.ts';
import { controllerRegistry } from './metrics.ts';
import { ServiceAccountClientBuilder, rootClientBuilder } from './clientbuilder/client-builder.ts';

const PROGRAM = 'kube-controller-manager';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const { _: positional, ...options } = parseCommandLine(PROGRAM, FLAGS);
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  const opts: ControllerManagerOptions = options;
  // A malformed --feature-gates is a flag parse error (pflag's words, exit 2), as in kube-apiserver.
  const gates = featureGatesError(opts['feature-gates']);
  if (gates) fail(gates, 2);
  const errs = validateOptions(opts);
  if (errs.length > 0) fail(errs.join('\n'), 1);
  let descriptors;
  try {
    descriptors = selectControllers(opts.controllers);
  } catch (e) {
    if (e instanceof ControllerSelectionError) fail(e.message, 1);
    throw e;
  }

  const logger = createLogger(PROGRAM, opts.v, {}, { format: opts['logging-format'] as LoggingFormat });
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
  const clientBuilder = opts['use-service-account-credentials']
    ? new ServiceAccountClientBuilder({ core: client, clock: realClock, logger })
    : rootClientBuilder(client);

  const registry = newMetricsRegistry();
  // Shutdown order: stop the controllers (drain) and let in-flight requests finish, then (only with
  // --leader-elect-release-on-cancel) release the Lease — so the next leader never overlaps with our last writes.
  const leading = leaderElectedRun({
    component: PROGRAM,
    hostname,
    logger,
    clientConfig: config,
    fencedClients: [client],
    eventClient: client,
    leaderElect: opts['leader-elect'],
    releaseOnCancel: opts['leader-elect-release-on-cancel'],
    lease: leaseOptionsFromFlags(opts),
    metricsRegistry: registry,
    // A controller's client that cannot be built (its ServiceAccount neither found nor created) or a controller
    // that cannot start ends the process with 1, as Kubernetes' ClientOrDie and StartControllers do.
    work: (signal) =>
      runControllers({ client, clientBuilder, descriptors, options: opts, logger, clock: realClock, signal, hostname }).catch((e: unknown) =>
        fail(e instanceof ControllerStartError ? `Error starting controllers: ${e.message}` : `Error in getting client: ${(e as Error).message}`, 1),
      ),
    drainTimeoutMs: 2000,
  });

  const serving = await secureServing(opts, { pairName: PROGRAM, logger, userAgent: config.userAgent ?? PROGRAM }).catch((e: unknown) =>
    fail((e as Error).message, 1),
  );
  const health = await startHealthServer({
    bindAddress: opts['bind-address'],
    port: opts['secure-port'],
    checks: { leaderElection: () => leading.healthCheck() },
    registry: Registry.merge([registry, controllerRegistry]),
    ...serving,
  }).catch((e: unknown) => fail(`failed to listen on ${opts['bind-address']}:${opts['secure-port']}: ${String(e)}`, 1));
  if (health) logger.info({ port: health.port }, 'Serving healthz and metrics');
  const unfollow = serving?.follow?.(health);

  await leading.start();
  unfollow?.();
  await health?.close();
  process.exit(0);
}

await main();

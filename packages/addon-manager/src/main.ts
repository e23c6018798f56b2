// kube-addon-manager: waits for the kube-system default ServiceAccount (as the real script does), then, while it
// holds the kube-system/kube-addon-manager Lease, reads --addons-dir every --period and ensures and reconciles
// what it finds (reconcile.ts). Losing the Lease exits 1; SIGTERM finishes the pass in flight, releases the Lease
// and exits 0; bad flags exit 2. It serves no port, as the real one.
import fs from 'node:fs';
import os from 'node:os';
import { Registry } from 'prom-client';
import { R, StatusError } from '@kemu/api';
import { RestClient, leaderElectedRun, leaseOptionsFromFlags, loadClientConfig } from '@kemu/client';
import { createLogger, loggingFormatFlag, parseCommandLine } from '@kemu/base';
import { loadManifests } from './manifests.ts';
import { addonManagerFlags } from './options.ts';
import { AllowlistError, pruneAllowlist } from './prune-allowlist.ts';
import { AddonReconciler } from './reconcile.ts';

const PROGRAM = 'kube-addon-manager';

function fail(message: string, code: number): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(code);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

async function main(): Promise<void> {
  const { _: positional, ...flags } = parseCommandLine(PROGRAM, addonManagerFlags());
  if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`, 2);
  if (flags.period <= 0) fail(`invalid argument "${flags.period}ms" for "--period" flag: must be greater than 0`, 2);
  let allowlist;
  try {
    allowlist = pruneAllowlist(flags['extra-prune-allowlist']);
  } catch (e) {
    if (e instanceof AllowlistError) fail(e.message, 2);
    throw e;
  }
  const logger = createLogger(PROGRAM, flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });
  const hostname = flags['hostname-override'] || os.hostname();
  let clientConfig;
  try {
    clientConfig = loadClientConfig({
      kubeconfig: flags.kubeconfig || undefined,
      master: flags.master || undefined,
      userAgent: `${PROGRAM}/v1.31.0 (${process.platform}/${process.arch}) kemu`,
    });
  } catch (e) {
    fail((e as Error).message, 1);
  }
  const client = new RestClient(clientConfig, { logger });
  const reconciler = new AddonReconciler({ client, logger, defaultNamespace: flags['default-namespace'], pruneAllowlist: allowlist });
  const dir = flags['addons-dir'];
  logger.info(`== Kubernetes addon manager started at ${new Date().toISOString()} with ADDON_CHECK_INTERVAL_SEC=${flags.period / 1000} ==`);

  const work = async (signal: AbortSignal) => {
    // The script's first step: addons may reference the kube-system default ServiceAccount.
    while (!signal.aborted) {
      try {
        await client.get(R.serviceaccounts, 'kube-system', 'default', { signal });
        break;
      } catch (e) {
        if (!(e instanceof StatusError)) logger.info({ err: (e as Error).message }, 'Error getting default service account, retry in 0.5 second');
        await sleep(500, signal);
      }
    }
    logger.info(`== Entering periodical apply loop at ${new Date().toISOString()} ==`);
    while (!signal.aborted) {
      const start = Date.now();
      await reconciler.cycle(loadManifests(dir));
      await sleep(Math.max(0, flags.period - (Date.now() - start)), signal);
    }
  };

  const eventClient = new RestClient(clientConfig, { logger });
  const leading = leaderElectedRun({
    component: PROGRAM,
    hostname,
    logger,
    clientConfig,
    fencedClients: [client],
    eventClient,
    leaderElect: flags['leader-elect'],
    releaseOnCancel: true,
    lease: leaseOptionsFromFlags(flags),
    metricsRegistry: new Registry(),
    work,
    drainTimeoutMs: 5_000,
  });
  await leading.start();
  process.exit(0);
}

await main();

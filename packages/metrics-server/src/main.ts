// metrics-server: reads its flags, then serves metrics.k8s.io/v1beta1 over HTTPS from a scrape of every node's
// kubelet /metrics/resource each --metric-resolution, as kubernetes-sigs/metrics-server does behind its
// aggregated APIService. A bad flag or an unusable kubeconfig exits 1 with the reason; SIGTERM stops it.
import fs from 'node:fs';
import { createLogger, loggingFormatFlag, parseCommandLine } from '@kemu/base';
import { FLAGS, validateFlags } from './options.ts';
import { startMetricsServer } from './server.ts';

const PROGRAM = 'metrics-server';

function fail(message: string): never {
  fs.writeSync(2, `Error: ${message}\n`);
  process.exit(1);
}

const { _: positional, ...flags } = parseCommandLine(PROGRAM, FLAGS, process.argv.slice(2));
if (positional.length > 0) fail(`unknown command "${positional[0]}" for "${PROGRAM}"`);
const errs = validateFlags(flags);
if (errs.length) fail(errs.length === 1 ? (errs[0] ?? '') : `[${errs.join(', ')}]`);
const logger = createLogger(PROGRAM, flags.v, {}, { format: loggingFormatFlag(flags['logging-format']) });
const server = await startMetricsServer(flags, logger).catch((e: unknown) => fail((e as Error).message));
logger.info({ port: server.port, resolution: `${flags['metric-resolution'] / 1000}s` }, 'Serving securely on the metrics API port');
const stop = () =>
  void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

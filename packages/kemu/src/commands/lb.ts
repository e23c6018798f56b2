// `kemu lb --port P --backend NAME=HOST:PORT …`: the built-in balancer as its own process (what `kemu up`
// runs when HAProxy is not installed). Not meant to be typed by hand, but harmless if it is.
import { LOGGING_FORMAT_FLAG, loggingFormatError, parseFlags, createLogger, onShutdown, type LoggingFormat } from '@kemu/base';
import { Balancer, type Backend } from '../balancer.ts';
import { UsageError } from './errors.ts';

const FLAGS = {
  'bind-address': { type: 'string', default: '127.0.0.1', usage: 'Address to listen on' },
  port: { type: 'int', default: 6443, usage: 'Port to listen on' },
  backend: { type: 'stringArray', default: [], usage: 'NAME=HOST:PORT of an apiserver (repeat)' },
  'health-path': { type: 'string', default: '/readyz', usage: 'HTTP path checked on each backend' },
  'check-ssl': { type: 'bool', default: false, usage: 'Health checks over TLS, the server certificate not verified (HAProxy\'s check-ssl verify none); the traffic itself passes through as TCP either way' },
  inter: { type: 'duration', default: 1000, usage: 'Health-check interval' },
  fall: { type: 'int', default: 2, usage: 'Failed checks before a backend is taken out' },
  rise: { type: 'int', default: 1, usage: 'Passed checks before a backend is put back' },
  ...LOGGING_FORMAT_FLAG,
} as const;

export function parseBackend(text: string): Backend {
  const m = /^([^=]+)=(.+):(\d+)$/.exec(text);
  if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined)
    throw new UsageError(`invalid argument "${text}" for "--backend" flag: want NAME=HOST:PORT`);
  return { name: m[1], host: m[2], port: Number(m[3]) };
}

export async function lb(argv: string[]): Promise<number> {
  const f = parseFlags(FLAGS, argv);
  const backends = f.backend.map(parseBackend);
  if (!backends.length) throw new UsageError('kemu lb needs at least one --backend');
  const formatError = loggingFormatError(f['logging-format']);
  if (formatError) throw new UsageError(formatError);
  const logger = createLogger('kemu-lb', 0, {}, { format: f['logging-format'] as LoggingFormat });
  const balancer = new Balancer({
    host: f['bind-address'],
    port: f.port,
    backends,
    healthPath: f['health-path'],
    checkSsl: f['check-ssl'],
    intervalMs: f.inter,
    fall: f.fall,
    rise: f.rise,
    logger,
  });
  const port = await balancer.listen();
  logger.info({ port, backends: backends.map((b) => b.name) }, `balancing ${f['bind-address']}:${port} over ${backends.length} backends`);
  onShutdown(() => balancer.close());
  await new Promise<never>(() => undefined);
  return 0;
}

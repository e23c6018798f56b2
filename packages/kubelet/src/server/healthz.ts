// The kubelet's healthz endpoint (KubeletConfiguration healthzPort/healthzBindAddress; cmd/kubelet's server.go):
// plain HTTP on 127.0.0.1:10248, /healthz answering "ok" with no authentication — what a supervisor or a
// container health check probes, while the API port (--secure-port) authenticates and authorizes every request.
// As the kubelet, a port it cannot bind is logged and tried again every 5 s, never fatal.
import net from 'node:net';
import { startHealthServer, type HealthRoutes, type HealthServer, type Logger } from '@kemu/base';

export const HEALTHZ_FLAGS = {
  'healthz-port': { type: 'int', default: 10248, usage: 'The port of the localhost healthz endpoint (set to 0 to disable)' },
  'healthz-bind-address': {
    type: 'string',
    default: '127.0.0.1',
    usage: "The IP address for the healthz server to serve on (set to '0.0.0.0' or '::' for listening on all interfaces and IP address families)",
  },
} as const;

export interface HealthzFlagValues {
  'healthz-port': number;
  'healthz-bind-address': string;
}

const RETRY_MS = 5_000;

/** Kubernetes' messages for bad values (pflag's IPVar, ValidateKubeletConfiguration); undefined when fine. */
export function healthzFlagError(f: HealthzFlagValues): string | undefined {
  const addr = f['healthz-bind-address'];
  if (net.isIP(addr) === 0) return `invalid argument "${addr}" for "--healthz-bind-address" flag: "${addr}" is not a valid IP address`;
  const port = f['healthz-port'];
  if (port !== 0 && (port < 1 || port > 65535)) return `invalid configuration: healthzPort (--healthz-port) ${port} must be between 1 and 65535, inclusive`;
  return undefined;
}

// healthz.InstallHandler with no checks: /healthz and its ping check's /healthz/ping; nothing else (no /livez,
// /readyz or /metrics there).
const onlyHealthz: HealthRoutes = (_req, res, path) => {
  if (path === '/healthz') return false;
  const ping = path === '/healthz/ping';
  res.writeHead(ping ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(ping ? 'ok' : '404 page not found\n');
  return true;
};

export interface KubeletHealthz {
  /** Resolves with the port once it is served (never, when disabled or closed first). */
  listening: Promise<number>;
  close(): Promise<void>;
}

/** Serves --healthz-bind-address:--healthz-port until closed; nothing when the port is 0. */
export function startKubeletHealthz(f: HealthzFlagValues, logger: Logger): KubeletHealthz {
  let server: HealthServer | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let failures = 0;
  let listened!: (port: number) => void;
  const listening = new Promise<number>((r) => (listened = r));
  const attempt = async () => {
    timer = undefined;
    try {
      const s = await startHealthServer({ bindAddress: f['healthz-bind-address'], port: f['healthz-port'], checks: {}, routes: onlyHealthz });
      if (closed) return void (await s?.close());
      server = s;
      if (s) listened(s.port);
    } catch (e) {
      if (closed) return;
      // The kubelet logs every retry; kemu logs the first at error level only: several kubelets on one host
      // (tests, the default address) would otherwise fill their logs with one line per 5 s each.
      const fields = { err: String(e), address: `${f['healthz-bind-address']}:${f['healthz-port']}` };
      if (failures++ === 0) logger.error(fields, 'Failed to start healthz server');
      else logger.debug(fields, 'Failed to start healthz server');
      timer = setTimeout(() => void attempt(), RETRY_MS);
      timer.unref();
    }
  };
  if (f['healthz-port'] !== 0) void attempt();
  return {
    listening,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await server?.close();
    },
  };
}

// A leader-elected component's main loop, as kube-controller-manager and kube-scheduler run it
// (component-base's leaderelection wiring): the work runs only while this process holds the Lease.
// - Identity `<hostname>_<uuid>`; the Lease is held through a client of its own, so renewals and the
//   release never queue behind the component's own requests in the rate limiter.
// - Lost Lease (renewal failed, or the process was frozen past renewDeadline): log "leaderelection lost"
//   and exit 1 at once, before any queued work runs (as Kubernetes' klog.Fatalf does).
// - SIGTERM/SIGINT: abort the work and wait for it to drain (bounded). With releaseOnCancel (kube-scheduler
//   sets it; kube-controller-manager does not) the Lease is renewed through the drain and then released, so
//   the next leader takes over at once but never overlaps with our last writes. Without it, renewal stops at
//   the signal (as the cancelled context stops client-go's renew loop) and the Lease moves when it expires;
//   the drain is then cut short before a follower could take over (lease duration − a jittered retry).
// - leader_election_master_status{name} is 1 while leading, 0 otherwise.
// - Fencing (kemu): the component's clients (fencedClients) write only through the elector's fence, so a
//   frozen or deposed leader starts no write past its renew deadline and the apiserver refuses any that
//   still arrive once the Lease has moved (X-Kemu-Lease).
// With leaderElect off the work simply runs until SIGTERM. `start()` resolves after a clean shutdown;
// the caller then closes its servers and exits 0.
import fs from 'node:fs';
import { Gauge, type Registry } from 'prom-client';
import { logSync, type Logger } from '@kemu/base';
import type { ClientConfig } from '../config.ts';
import { EventRecorder } from '../events.ts';
import { RestClient } from '../rest.ts';
import { JITTER_FACTOR, LeaderElector, leaderIdentity } from './leaderelection.ts';
import { startFreezeWatchdog } from './watchdog.ts';

/** Which Lease the component competes for, and the elector's timings (ms). */
export interface LeaseOptions {
  namespace: string;
  name: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaderElectedRunOptions {
  /** The component's name (kube-controller-manager, kube-scheduler): the leader-election client's user agent. */
  component: string;
  hostname: string;
  logger: Logger;
  /** The component's client config; the leader-election client is built from it (user agent + "/leader-election"). */
  clientConfig: ClientConfig;
  /** The component's clients: while leader-elected, their writes are fenced by the Lease (RestClient.fenceWrites). */
  fencedClients?: RestClient[];
  /** The client the LeaderElection events on the Lease go through (as `component` from `hostname`). */
  eventClient: RestClient;
  leaderElect: boolean;
  /** Release the Lease on SIGTERM (client-go's ReleaseOnCancel): kube-scheduler true, kube-controller-manager false. */
  releaseOnCancel: boolean;
  lease: LeaseOptions;
  /** Where leader_election_master_status is registered. */
  metricsRegistry: Registry;
  /** The component's work; `signal` aborts when leadership is lost or on SIGTERM. */
  work(signal: AbortSignal): Promise<void>;
  /** On SIGTERM, after the work returned: let in-flight requests land (optional). */
  afterWork?(): Promise<void>;
  /** Upper bound on the SIGTERM drain (work + afterWork) before the Lease is released (or left) anyway. */
  drainTimeoutMs: number;
}

export interface LeaderElectedRun {
  /** The /healthz leaderElection check (true until the elector runs). */
  healthCheck(): boolean;
  /** Runs until a clean shutdown; exits the process with 1 when leadership is lost. */
  start(): Promise<void>;
}

export function leaderElectedRun(opts: LeaderElectedRunOptions): LeaderElectedRun {
  const { component, logger, lease } = opts;
  const eventRecorder = new EventRecorder(opts.eventClient, { component, host: opts.hostname }, { logger });
  const leaderGauge = new Gauge({
    name: 'leader_election_master_status',
    help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    labelNames: ['name'],
    registers: [opts.metricsRegistry],
  });
  leaderGauge.set({ name: lease.name }, 0);

  const fatal = (msg: string, extra: Record<string, unknown> = {}): never => {
    // Written synchronously: nothing queued (a log flush, a request) may run once leadership is gone.
    // An error line, as Kubernetes' logger.Error(nil, "leaderelection lost") before klog.FlushAndExit.
    logSync(logger, 'error', extra, msg);
    process.exit(1);
  };

  let elector: LeaderElector | undefined;
  const start = async (): Promise<void> => {
    const workStop = new AbortController();
    const stopping = new AbortController();
    let shuttingDown = false;
    let running: Promise<void> | undefined;
    /** The bounded SIGTERM drain (set on the signal). */
    let drain: Promise<void> = Promise.resolve();
    const onSignal = (sig: NodeJS.Signals) => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal: sig }, 'Received termination signal, shutting down');
      workStop.abort(new Error(`received ${sig}`));
      const drained = (async () => {
        await running;
        await opts.afterWork?.();
      })();
      const keepLease = opts.leaderElect && !opts.releaseOnCancel;
      const limitMs = keepLease ? Math.min(opts.drainTimeoutMs, Math.max(0, lease.leaseDurationMs - JITTER_FACTOR * lease.retryPeriodMs)) : opts.drainTimeoutMs;
      const timeout = new Promise((r) => setTimeout(r, limitMs));
      drain = Promise.race([drained, timeout]).then(() => undefined);
      if (keepLease) stopping.abort(new Error(`received ${sig}`));
      else void drain.then(() => stopping.abort(new Error(`received ${sig}`)));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);

    const work = (signal: AbortSignal) => {
      running = opts.work(AbortSignal.any([signal, workStop.signal]));
      return running;
    };

    if (!opts.leaderElect) {
      const stopped = new Promise((r) => stopping.signal.addEventListener('abort', r, { once: true }));
      await Promise.race([work(stopping.signal), stopped]);
      return;
    }

    const electionClient = new RestClient({ ...opts.clientConfig, userAgent: `${opts.clientConfig.userAgent ?? component}/leader-election` }, { logger });
    const identity = leaderIdentity(opts.hostname);
    logger.info({ identity }, 'Attempting to acquire leader lease');
    try {
      elector = new LeaderElector({
        client: electionClient,
        namespace: lease.namespace,
        name: lease.name,
        identity,
        leaseDurationMs: lease.leaseDurationMs,
        renewDeadlineMs: lease.renewDeadlineMs,
        retryPeriodMs: lease.retryPeriodMs,
        releaseOnCancel: opts.releaseOnCancel,
        logger,
        eventRecorder,
        callbacks: {
          onStartedLeading: async (signal) => {
            leaderGauge.set({ name: lease.name }, 1);
            logger.info({ identity }, 'Started leading');
            // A process frozen past its renew deadline cannot know whether it still leads: behave as if
            // the Lease were lost before acting on anything queued meanwhile.
            const watchdog = startFreezeWatchdog(lease.renewDeadlineMs, (gapMs) => fatal('leaderelection lost', { gapMs }));
            try {
              await work(signal);
            } finally {
              watchdog.stop();
            }
          },
          onStoppedLeading: () => {
            leaderGauge.set({ name: lease.name }, 0);
            if (shuttingDown) return;
            // The work's signal has already been aborted by the elector; exit before anything else runs.
            fatal('leaderelection lost');
          },
          onNewLeader: (id) => {
            if (id !== identity) logger.info({ leader: id }, 'New leader elected');
          },
        },
      });
      for (const c of opts.fencedClients ?? []) c.fenceWrites(elector.fence());
    } catch (e) {
      fs.writeSync(2, `Error: couldn't create leader elector: ${(e as Error).message}\n`);
      process.exit(1);
    }
    await elector.run(stopping.signal);
    if (!shuttingDown) fatal('leaderelection lost');
    // Without a release the renewals stopped at the signal; the work may still be finishing its last writes.
    await drain;
  };

  return { healthCheck: () => elector?.healthCheck() ?? true, start };
}

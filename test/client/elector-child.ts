// Child process for the leader-election test: one LeaderElector on a real apiserver; prints one JSON line
// per callback; on SIGTERM cancels (releasing the Lease) and exits 0.
import { RestClient, LeaderElector, leaderIdentity } from '@kemu/client';

const [server, name, lease, renew, retry] = process.argv.slice(2) as [string, string, string, string, string];
const identity = leaderIdentity(name);
const say = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, identity, t: Date.now(), ...extra })}\n`);

const client = new RestClient({ server, qps: -1 });
const elector = new LeaderElector({
  client,
  namespace: 'kube-system',
  name: 'kemu-test-election',
  identity,
  leaseDurationMs: Number(lease),
  renewDeadlineMs: Number(renew),
  retryPeriodMs: Number(retry),
  releaseOnCancel: true,
  callbacks: {
    onStartedLeading: () => void say('started'),
    onStoppedLeading: () => void say('stopped'),
    onNewLeader: (who) => void say('leader', { who }),
  },
});
const ctrl = new AbortController();
process.on('SIGTERM', () => ctrl.abort());
say('ready');
await elector.run(ctrl.signal);
await client.close();
process.exit(0);

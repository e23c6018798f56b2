// kemu: the lab launcher. `kemu up` runs the whole control plane as supervised processes on loopback; the
// other commands act on that running lab through DIR/kemu.json and the supervisor's control socket.
import { FlagError } from '@kemu/base';
import { componentAction } from './commands/lab.ts';
import { UsageError } from './commands/errors.ts';
import { StateError } from './state.ts';
import { ControlError } from './control.ts';

const USAGE = `kemu — a Kubernetes control plane on your laptop

Usage:
  kemu up [--data-dir DIR] [--workers N] [--apiservers N] [--controller-managers N] [--schedulers N]
          [--address 127.0.0.1] [--port 6443] [--lb haproxy|builtin|auto] [--leader-elect-lease-duration D]
          [--leader-elect-renew-deadline D] [--leader-elect-retry-period D] [--node-monitor-grace-period D]
          [--horizontal-pod-autoscaler-sync-period D] [--horizontal-pod-autoscaler-downscale-stabilization D] [--cpu-usage-window D]
          [--default-not-ready-toleration-seconds N] [--default-unreachable-toleration-seconds N]
          [--kubelet-bootstrap=false] [--addon-managers N] [--addon-check-interval D]
          [--node-group name=G,min=N,max=N[,cpu=Q][,memory=Q][,pods=N][,labels=..][,taints=..]]...
          [--cluster-autoscalers N] [--autoscaler-arg=--flag=value]...
                                start the lab in the foreground (Ctrl-C stops it); workers get their
                                certificates by TLS bootstrapping (DIR/bootstrap-kubelet.kubeconfig); the
                                addon manager applies DIR/addons (CoreDNS, metrics-server, your manifests)
  kemu status [-o json]         processes, apiserver readiness, Lease holders, Node readiness
  kemu down                     stop the lab and every process it started
  kemu stop <name>              SIGTERM a component; it stays down until \`kemu start <name>\`
  kemu kill <name>              SIGKILL a component; it stays down until \`kemu start <name>\`
  kemu pause <name>             SIGSTOP a component
  kemu unpause <name>           SIGCONT a paused component
  kemu start <name>             start a stopped or killed component
  kemu logs <name> [-f]         print (or follow) DIR/logs/<name>.log
  kemu join [--token T] [--name worker-N]
                                add an emulated worker that bootstraps with the token (default: a new one)
                                and wait for its Node to be Ready
  kemu token create [token] [--ttl 24h] [--description D] [--groups G] [--usages U]
  kemu token list | kemu token delete ID
                                the lab's bootstrap tokens, as \`kubeadm token\` manages them
  kemu pki [--apiserver-addresses A,B] [--extra-sans S,T] [--server URL] [--force]
                                make the cluster PKI in DIR/pki/ (seed 003's files) and the admin,
                                controller-manager and scheduler kubeconfigs in DIR/; keeps valid files

  kemu compose up [--port 6443] [--default-unreachable-toleration-seconds N] …
                                the same lab as containers (docker-compose.yml): checks Docker, builds what
                                is missing, waits for health, writes DIR/kubeconfig (\`kemu compose up --help\`)
  kemu compose down [--volumes] remove its containers and network (and the state volume)
  kemu compose cloud --node-group ...
                                inside that lab (its \`cloud\` service): the node groups' cloud, machines as containers

Each process has its own loopback address in the /24 of --address: the balancer on 127.0.0.1:6443,
apiserver-N on 127.0.0.1N:6443, controller-manager-N 127.0.0.2N, scheduler-N 127.0.0.3N, worker-N (its
node's InternalIP) 127.0.0.10N, addon-manager-N 127.0.0.5N (no port); with \`kemu up --store etcd\`, etcd-N on 127.0.0.4N:2379. A second lab side by
side: --address 127.0.1.1 (and its own --data-dir).

Every command takes --data-dir DIR (default ./.kemu). Names: lb, etcd-N, apiserver-N, controller-manager-N,
scheduler-N, addon-manager-N, worker-N (each process's --hostname-override). \`kemu up --help\` and \`kemu pki --help\` list all flags.
`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  // Every command is loaded on demand: `kemu stop` (run often, and by tests) and the built-in balancer's own
  // `kemu lb` process then load only what they use, not the supervisor, the lab's PKI or the status views.
  up: async (a) => (await import('./commands/up.ts')).up(a),
  down: async (a) => (await import('./commands/down.ts')).down(a),
  status: async (a) => (await import('./commands/status.ts')).status(a),
  logs: async (a) => (await import('./commands/logs.ts')).logs(a),
  lb: async (a) => (await import('./commands/lb.ts')).lb(a),
  join: async (a) => (await import('./commands/join.ts')).join(a),
  token: async (a) => (await import('./commands/token.ts')).tokenCommand(a),
  // The X.509 library is only needed here.
  pki: async (a) => (await import('./commands/pki.ts')).pki(a),
  // Otherwise every kemu process (the built-in balancer included) would load yaml and the Docker helpers.
  compose: async (a) => (await import('./commands/compose.ts')).composeCommand(a),
  stop: (a) => componentAction('stop', a),
  kill: (a) => componentAction('kill', a),
  pause: (a) => componentAction('pause', a),
  unpause: (a) => componentAction('unpause', a),
  start: (a) => componentAction('start', a),
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return cmd ? 0 : 2;
  }
  const run = COMMANDS[cmd];
  if (!run) {
    process.stderr.write(`Error: unknown command "${cmd}" for "kemu"\n\n${USAGE}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const { usage } = await import('@kemu/base');
    const { UP_FLAGS, PKI_FLAGS } = await import('./options.ts');
    const { COMPOSE_UP_FLAGS, COMPOSE_DOWN_FLAGS } = await import('./commands/compose.ts');
    const { COMPOSE_CLOUD_FLAGS } = await import('./compose/cloud.ts');
    const { TOKEN_CREATE_FLAGS, TOKEN_LIST_FLAGS, TOKEN_DELETE_FLAGS, TOKEN_USAGE } = await import('./commands/token.ts');
    const { JOIN_FLAGS } = await import('./commands/join.ts');
    const sub = rest[0];
    const text =
      cmd === 'up' ? usage('kemu up', UP_FLAGS)
      : cmd === 'pki' ? usage('kemu pki', PKI_FLAGS)
      : cmd === 'join' ? usage('kemu join', JOIN_FLAGS)
      : cmd === 'token' && sub === 'create' ? usage('kemu token create [token]', TOKEN_CREATE_FLAGS)
      : cmd === 'token' && sub === 'list' ? usage('kemu token list', TOKEN_LIST_FLAGS)
      : cmd === 'token' && sub === 'delete' ? usage('kemu token delete [token-value] ...', TOKEN_DELETE_FLAGS)
      : cmd === 'token' ? TOKEN_USAGE
      : cmd === 'compose' && sub === 'up' ? usage('kemu compose up', COMPOSE_UP_FLAGS)
      : cmd === 'compose' && sub === 'down' ? usage('kemu compose down', COMPOSE_DOWN_FLAGS)
      : cmd === 'compose' && sub === 'cloud' ? usage('kemu compose cloud', COMPOSE_CLOUD_FLAGS)
      : USAGE;
    process.stdout.write(text);
    return 0;
  }
  try {
    return await run(rest);
  } catch (e) {
    if (e instanceof FlagError || e instanceof UsageError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 2;
    }
    // A token or join refused (kubeadm's messages), an API error (StatusError): exit 1 as kubeadm does.
    const refused = e instanceof Error && ['PkiError', 'BootstrapTokenError', 'StatusError'].includes(e.name);
    if (e instanceof StateError || e instanceof ControlError || refused) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

process.exitCode = await main(process.argv.slice(2));

// What runs in an emulated container: its command + args through the emulated shell (shell/), with the
// container's environment, hostname and /etc files; or, for an image run with no command, a short start-up line
// written for kemu when the image is a well-known server. The program decides the container's exit (time and
// code) unless the kemu.dev/run-seconds or kemu.dev/exit-code annotations do (see containerBehaviour).
import type { Container, EnvVar } from '@kemu/api';
import { FINITE, SHELLS } from './command.ts';
import { liveProcess, parses, runProcess, type ProcessEvent, type ShellContext, type ShellStep } from '../shell/interpreter.ts';
import type { ShellNetwork } from '../shell/network.ts';

export interface ContainerProgram {
  /** The shell runs it to its end: the exit time and code come from it. */
  scripted: boolean;
  /** It never writes anything (no command and no start-up line): no process or log is kept for it. */
  silent?: boolean;
  /** Its events from a start at `startedAt` (deterministic: the same start gives the same events). */
  start(startedAt: number, podIP?: string): Iterator<ProcessEvent>;
  /**
   * Set when the command talks to the network (wget, curl): its steps in real time against `network`
   * (logs/live-process.ts), instead of `start`'s virtual time, where those would end at once, silently.
   */
  live?(startedAt: number, podIP: string | undefined, network: ShellNetwork): Generator<ShellStep, number>;
}

/** A command line that calls wget or curl (as a word, with or without a path). */
const NETWORKED = /(^|[\s;&|(`$/!])(wget|curl)(?=$|[\s;&|)`])/;

export function usesNetwork(argv: readonly string[]): boolean {
  return argv.some((a) => NETWORKED.test(a));
}

export interface PodContext {
  name: string;
  hostname?: string;
  subdomain?: string;
  namespace?: string;
  uid?: string;
  annotations?: Record<string, string>;
}

/** An env var's fieldRef value (the downward API): metadata.name, .namespace, .uid, .annotations['k']. */
export function fieldRefValue(path: string, pod: PodContext): string | undefined {
  if (path === 'metadata.name') return pod.name;
  if (path === 'metadata.namespace') return pod.namespace;
  if (path === 'metadata.uid') return pod.uid;
  const m = /^metadata\.annotations\['(.+)'\]$/.exec(path);
  return m ? (pod.annotations?.[m[1] ?? ''] ?? '') : undefined;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Start-up lines of well-known images run without a command (kemu's own words: no process runs). */
const BANNERS: [RegExp, (port: number | undefined) => string, number][] = [
  [/^nginx$|\/nginx$|nginx-unprivileged$/, (p) => `kemu: emulated nginx started, serving HTTP on port ${p}`, 80],
  [/^httpd$|\/httpd$/, (p) => `kemu: emulated Apache httpd started, serving HTTP on port ${p}`, 80],
  [/^redis$|\/redis$/, (p) => `kemu: emulated Redis started, ready to accept connections on port ${p}`, 6379],
  [/^postgres$|\/postgres$/, (p) => `kemu: emulated PostgreSQL started, ready to accept connections on port ${p}`, 5432],
  [/^mysql$|\/mysql$/, (p) => `kemu: emulated MySQL started, ready for connections on port ${p}`, 3306],
  [/^mariadb$|\/mariadb$/, (p) => `kemu: emulated MariaDB started, ready for connections on port ${p}`, 3306],
  [/^mongo$|\/mongo$/, (p) => `kemu: emulated MongoDB started, waiting for connections on port ${p}`, 27017],
  [/^memcached$|\/memcached$/, (p) => `kemu: emulated memcached started on port ${p}`, 11211],
  [/^rabbitmq$|\/rabbitmq$/, (p) => `kemu: emulated RabbitMQ started, accepting AMQP connections on port ${p}`, 5672],
];

/** The repository of an image reference, without registry-less tag or digest: "docker.io/library/nginx:1.27" → "docker.io/library/nginx". */
function repository(image: string): string {
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
}

export function banner(c: Container): string | undefined {
  const repo = repository(c.image ?? '');
  for (const [re, line, port] of BANNERS) if (re.test(repo)) return `${line(c.ports?.[0]?.containerPort ?? port)}\n`;
  return undefined;
}

/** Kubernetes' $(VAR) expansion of command, args and env values: $$ escapes, unknown references stay. */
export function expandRefs(s: string, env: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? all)));
}

/**
 * The kubernetes Service's variables every container gets. The kubelet reads the Service; kemu assumes the
 * default --service-cluster-ip-range (10.96.0.0/12), whose first address it gets.
 */
const KUBERNETES_SERVICE_ENV: Readonly<Record<string, string>> = {
  KUBERNETES_SERVICE_HOST: '10.96.0.1',
  KUBERNETES_SERVICE_PORT: '443',
  KUBERNETES_SERVICE_PORT_HTTPS: '443',
  KUBERNETES_PORT: 'tcp://10.96.0.1:443',
  KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
  KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
  KUBERNETES_PORT_443_TCP_PORT: '443',
  KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
};

/** The container's environment: its env values in order (of valueFrom, the pod fieldRefs), plus what the runtime sets. */
export function containerEnv(env: readonly EnvVar[] | undefined, hostname: string, pod?: PodContext): Record<string, string> {
  const out: Record<string, string> = { PATH, HOSTNAME: hostname, ...KUBERNETES_SERVICE_ENV };
  for (const e of env ?? []) {
    if (e.value !== undefined) out[e.name] = expandRefs(e.value, out);
    const path = (e.valueFrom as { fieldRef?: { fieldPath?: string } } | undefined)?.fieldRef?.fieldPath;
    const v = path !== undefined && pod ? fieldRefValue(path, pod) : undefined;
    if (v !== undefined) out[e.name] = v;
  }
  out.HOME ??= '/root';
  return out;
}

function etcHosts(hostname: string, podIP: string | undefined, fqdn: string | undefined): string {
  const lines = ['# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', 'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters'];
  if (podIP) lines.push(`${podIP}\t${fqdn ? `${fqdn}\t` : ''}${hostname}`);
  return lines.join('\n') + '\n';
}

/** The shell context of a container started at `startedAt`: its environment, hostname and /etc files. */
export function containerShellContext(c: Container, pod: PodContext, startedAt: number, podIP?: string): ShellContext {
  const hostname = pod.hostname ?? pod.name;
  return {
    startedAt,
    env: containerEnv(c.env, hostname, pod),
    hostname,
    files: { '/etc/hostname': `${hostname}\n`, '/etc/hosts': etcHosts(hostname, podIP, pod.subdomain ? `${hostname}.${pod.subdomain}` : undefined) },
    endsByItself: (name) => FINITE.has(name),
    stdinOpen: c.stdin === true,
  };
}

/** The command line a container runs (command + args, $(VAR) expanded); empty: the image's own. */
export function containerArgv(c: Container, pod: PodContext): string[] {
  const env = containerEnv(c.env, pod.hostname ?? pod.name, pod);
  return [...(c.command ?? []), ...(c.args ?? [])].map((a) => expandRefs(a, env));
}

export function containerProgram(c: Container, pod: PodContext): ContainerProgram {
  const argv = containerArgv(c, pod);
  const context = (startedAt: number, podIP?: string): ShellContext => containerShellContext(c, pod, startedAt, podIP);
  if (argv.length === 0) {
    const line = banner(c);
    return {
      scripted: false,
      ...(line ? {} : { silent: true }),
      *start() {
        if (line) yield { kind: 'output', atMs: 0, stream: 'stdout', text: line };
        yield { kind: 'forever', atMs: 0 };
      },
    };
  }
  const name = (argv[0] ?? '').slice((argv[0] ?? '').lastIndexOf('/') + 1);
  const c_ = argv.indexOf('-c');
  // A shell script the parser does not read is left to command.ts (no output).
  const readable = !SHELLS.has(name) || c_ < 0 || argv[c_ + 1] === undefined || parses(argv[c_ + 1] ?? '');
  return {
    scripted: readable,
    ...(readable && usesNetwork(argv) ? { live: (startedAt: number, podIP: string | undefined, network: ShellNetwork) => liveProcess(argv, { ...context(startedAt, podIP), network }) } : {}),
    *start(startedAt, podIP) {
      if (!readable) {
        yield { kind: 'forever', atMs: 0 };
        return;
      }
      yield* runProcess(argv, context(startedAt, podIP));
    },
  };
}

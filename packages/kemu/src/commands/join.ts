// `kemu join [--token T] [--name N]`: one more emulated worker in the running lab, which bootstraps with the token
// (a fresh one, made as `kemu token create` makes it, when none is given). The supervisor starts and supervises it
// (lab-join.ts); this command then waits, as `kubeadm join` does, until its Node is registered and Ready.
import { R, StatusError, type KubeObject } from '@kemu/api';
import { parseFlags, type FlagSpecs } from '@kemu/base';
import { DATA_DIR_FLAG } from '../options.ts';
import { sendControl } from '../control.ts';
import { labAdminClient } from '../lab-bootstrap.ts';
import { BootstrapTokenError, LAB_BOOTSTRAP_GROUP, generateBootstrapToken, parseBootstrapToken, tokenWithTtl } from '../bootstrap-token.ts';
import { createToken, listTokens } from '../token-store.ts';
import { loadLab, supervisorRunning } from './lab.ts';
import { UsageError } from './errors.ts';

export const JOIN_FLAGS = {
  ...DATA_DIR_FLAG,
  token: { type: 'string', default: '', usage: 'Bootstrap token "[a-z0-9]{6}.[a-z0-9]{16}" the worker bootstraps with (default: a new one, valid 24h)' },
  name: { type: 'string', default: '', usage: "The worker's name, its Node's name and --hostname-override (default: worker-N, N the next free worker slot)" },
  wait: { type: 'duration', default: 120_000, usage: 'How long to wait for the Node to be Ready (0: do not wait)' },
} as const satisfies FlagSpecs;

function readyOf(node: KubeObject): boolean {
  const conditions = (node.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

export async function join(argv: string[]): Promise<number> {
  const f = parseFlags(JOIN_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu join takes no arguments (got ${f._.join(' ')}); the token goes in --token`);
  const lab = loadLab(f['data-dir']);
  if (!supervisorRunning(lab)) throw new UsageError(`the lab in ${lab.dataDir} is not running (kemu pid ${lab.supervisorPid} is gone)`);
  const client = labAdminClient(lab.dataDir);
  try {
    let token = f.token;
    if (token) {
      // Fail fast where the kubelet would retry its 401 forever: the token must be one the lab knows.
      const { id } = parseBootstrapToken(token);
      const known = (await listTokens(client)).tokens.some((t) => t.token === token);
      if (!known) throw new BootstrapTokenError(`bootstrap token "${id}" is not a token of this lab (kemu token list shows them; kemu token create ${token} adds it)`);
    } else {
      token = generateBootstrapToken();
      await createToken(client, tokenWithTtl({ token, description: "Created by 'kemu join'.", usages: ['authentication', 'signing'], groups: [LAB_BOOTSTRAP_GROUP] }, 86_400_000, Date.now()));
      process.stdout.write(`[preflight] created bootstrap token ${token.split('.')[0]} (kemu token list shows it)\n`);
    }
    // The supervisor's answer starts with the worker's name ("worker-3 started on …").
    const message = await sendControl(lab.controlSocket, 'join', f.name || undefined, 60_000, { token });
    const name = message.split(' ')[0] ?? '';
    process.stdout.write(`[kubelet-start] ${message}\n`);
    if (f.wait <= 0) return 0;
    process.stdout.write('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap...\n');
    const deadline = Date.now() + f.wait;
    for (;;) {
      try {
        if (readyOf(await client.get(R.nodes, undefined, name))) break;
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
      }
      if (Date.now() > deadline) {
        process.stderr.write(`error: node "${name}" is not Ready after ${f.wait / 1000}s; see kemu logs ${name}\n`);
        return 1;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const bootstrapped = message.includes('bootstrapping');
    process.stdout.write(
      `\nThis node has joined the cluster:\n${bootstrapped ? '* Certificate signing request was sent to apiserver and a response was received.\n' : '* Its client certificate was issued by kemu (this lab\'s kubelets do not bootstrap).\n'}` +
        `* The Kubelet was informed of the new secure connection details.\n\nRun 'kubectl get nodes' on the control-plane to see this node join the cluster.\n`,
    );
    return 0;
  } finally {
    await client.close();
  }
}

// `kemu token create|list|delete`: the lab's bootstrap tokens, as `kubeadm token` manages them — Secrets
// kube-system/bootstrap-token-<id>, read and written as the admin (DIR/kubeconfig) through @kemu/client.
import path from 'node:path';
import { R } from '@kemu/api';
import { RestClient, loadClientConfig } from '@kemu/client';
import { parseFlags, type FlagSpecs } from '@kemu/base';
import { DATA_DIR_FLAG, resolveDataDir } from '../options.ts';
import { labPkiFiles } from '../lab-pki.ts';
import {
  BOOTSTRAP_GROUP_PATTERN,
  BOOTSTRAP_TOKEN_ID_PATTERN,
  BOOTSTRAP_TOKEN_PATTERN,
  BootstrapTokenError,
  LAB_BOOTSTRAP_GROUP,
  bootstrapTokenSecretName,
  generateBootstrapToken,
  isValidBootstrapTokenId,
  parseBootstrapToken,
  tokenListTable,
  tokenWithTtl,
  validateGroups,
  validateUsages,
} from '../bootstrap-token.ts';
import { createToken, listTokens } from '../token-store.ts';
import { UsageError } from './errors.ts';

const COMMON = {
  ...DATA_DIR_FLAG,
  kubeconfig: { type: 'string', default: '', usage: "The kubeconfig file to use when talking to the cluster (default: DIR/kubeconfig, the lab's admin)" },
} as const satisfies FlagSpecs;

export const TOKEN_CREATE_FLAGS = {
  ...COMMON,
  ttl: { type: 'duration', default: 86_400_000, usage: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire" },
  description: { type: 'string', default: '', usage: 'A human friendly description of how this token is used.' },
  usages: { type: 'stringArray', default: ['signing', 'authentication'], usage: 'Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication]' },
  groups: { type: 'stringArray', default: [LAB_BOOTSTRAP_GROUP], usage: `Extra groups that this token will authenticate as when used for authentication. Must match "${BOOTSTRAP_GROUP_PATTERN}". The default is the group seed 003's bindings name (kubeadm's, system:bootstrappers:kubeadm:default-node-token, is bound to nothing in the lab)` },
  'print-join-command': { type: 'bool', default: false, usage: "Instead of printing only the token, print the full 'kemu join' command that adds a worker with it." },
} as const satisfies FlagSpecs;

export const TOKEN_LIST_FLAGS = COMMON;
export const TOKEN_DELETE_FLAGS = COMMON;

export const TOKEN_USAGE = `Usage:
  kemu token create [token] [--ttl 24h] [--description D] [--groups G] [--usages U] [--print-join-command]
  kemu token list
  kemu token delete [token-value] ...
Bootstrap tokens are Secrets kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token, of the form
"[a-z0-9]{6}.[a-z0-9]{16}"; kemu acts as the lab's admin (--kubeconfig, default DIR/kubeconfig).
`;

function client(dataDirFlag: string, kubeconfigFlag: string): RestClient {
  const kubeconfig = kubeconfigFlag ? path.resolve(kubeconfigFlag) : labPkiFiles(resolveDataDir(dataDirFlag)).userKubeconfig;
  try {
    return new RestClient(loadClientConfig({ kubeconfig, userAgent: 'kemu' }));
  } catch (e) {
    throw new BootstrapTokenError(`failed to load admin kubeconfig: ${(e as Error).message}`);
  }
}

async function withClient<T>(c: RestClient, f: (c: RestClient) => Promise<T>): Promise<T> {
  try {
    return await f(c);
  } finally {
    await c.close();
  }
}

async function create(argv: string[]): Promise<number> {
  const f = parseFlags(TOKEN_CREATE_FLAGS, argv);
  if (f._.length > 1) throw new UsageError(`kemu token create takes at most one token (got ${f._.join(' ')})`);
  const token = f._[0] ?? generateBootstrapToken();
  parseBootstrapToken(token);
  if (f.ttl < 0) throw new BootstrapTokenError(`--ttl ${f.ttl}ms: must not be negative`);
  validateUsages(f.usages);
  validateGroups(f.groups);
  const t = tokenWithTtl({ token, ...(f.description ? { description: f.description } : {}), usages: [...f.usages], groups: [...f.groups] }, f.ttl, Date.now());
  await withClient(client(f['data-dir'], f.kubeconfig), (c) => createToken(c, t));
  process.stdout.write(f['print-join-command'] ? `kemu join --token ${token} --data-dir ${resolveDataDir(f['data-dir'])}\n` : `${token}\n`);
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const f = parseFlags(TOKEN_LIST_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu token list takes no arguments (got ${f._.join(' ')})`);
  const { tokens, errors } = await withClient(client(f['data-dir'], f.kubeconfig), listTokens);
  for (const e of errors) process.stderr.write(`${e}\n`);
  process.stdout.write(tokenListTable(tokens, Date.now()));
  return 0;
}

async function del(argv: string[]): Promise<number> {
  const f = parseFlags(TOKEN_DELETE_FLAGS, argv);
  if (f._.length < 1) throw new BootstrapTokenError(`missing subcommand; 'token delete' is missing token of form "${BOOTSTRAP_TOKEN_ID_PATTERN}"`);
  await withClient(client(f['data-dir'], f.kubeconfig), async (c) => {
    for (const arg of f._) {
      let id = arg;
      if (!isValidBootstrapTokenId(arg)) {
        try {
          id = parseBootstrapToken(arg).id;
        } catch {
          throw new BootstrapTokenError(`given token "${arg}" didn't match pattern "${BOOTSTRAP_TOKEN_ID_PATTERN}" or "${BOOTSTRAP_TOKEN_PATTERN}"`);
        }
      }
      try {
        await c.delete(R.secrets, 'kube-system', bootstrapTokenSecretName(id));
      } catch (e) {
        throw new BootstrapTokenError(`failed to delete bootstrap token "${id}": ${(e as Error).message}`);
      }
      process.stdout.write(`bootstrap token "${id}" deleted\n`);
    }
  });
  return 0;
}

export async function tokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'create') return create(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'delete') return del(rest);
  throw new UsageError(`kemu token needs create, list or delete (got ${sub ?? 'nothing'})\n${TOKEN_USAGE}`);
}

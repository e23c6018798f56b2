// Client configuration: where the apiserver is and how to authenticate, read from a kubeconfig file the way
// client-go's clientcmd does (current-context → cluster + user), with --master overriding the server.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface ClientConfig {
  server: string;
  caData?: Buffer;
  certData?: Buffer;
  keyData?: Buffer;
  token?: string;
  insecureSkipTLSVerify?: boolean;
  /** Sustained requests per second (client-go default for components: 50 here, as kube-controller-manager's --kube-api-qps). <= 0 disables. */
  qps?: number;
  /** Bucket size for bursts (default 100). */
  burst?: number;
  /** Overall timeout of a non-watch request in ms (default 60 s). */
  timeoutMs?: number;
  userAgent?: string;
}

export interface LoadClientConfigOptions {
  kubeconfig?: string;
  master?: string;
  qps?: number;
  burst?: number;
  userAgent?: string;
}

type Dict = Record<string, unknown>;

function isDict(v: unknown): v is Dict {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(d: Dict, key: string): string | undefined {
  const v = d[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Finds `{ name, <field>: {...} }` in a kubeconfig list (clusters, users, contexts). */
function named(doc: Dict, list: string, field: string, name: string | undefined): Dict | undefined {
  const entries = doc[list];
  if (!Array.isArray(entries) || name === undefined) return undefined;
  for (const e of entries) {
    if (isDict(e) && e.name === name && isDict(e[field])) return e[field];
  }
  return undefined;
}

/** `<key>-data` (base64) wins over `<key>` (a file path relative to the kubeconfig's directory). */
function fileOrData(d: Dict, key: string, dir: string): Buffer | undefined {
  const data = str(d, `${key}-data`);
  if (data) return Buffer.from(data, 'base64');
  const file = str(d, key);
  if (file) return fs.readFileSync(path.resolve(dir, file));
  return undefined;
}

/** Parses kubeconfig text; `dir` resolves relative file references. Exported for tests. */
export function parseKubeconfig(text: string, dir: string): ClientConfig {
  const doc: unknown = parseYaml(text);
  if (!isDict(doc)) throw new Error('invalid kubeconfig: not a mapping');
  const contextName = str(doc, 'current-context');
  const ctx = named(doc, 'contexts', 'context', contextName);
  if (contextName && !ctx) throw new Error(`invalid kubeconfig: context "${contextName}" not found`);
  // Without a current context, a kubeconfig with exactly one cluster/user is still usable.
  const clusterName = ctx ? str(ctx, 'cluster') : undefined;
  const userName = ctx ? str(ctx, 'user') : undefined;
  const only = (list: string, field: string): Dict | undefined => {
    const entries = doc[list];
    if (Array.isArray(entries) && entries.length === 1 && isDict(entries[0]) && isDict(entries[0][field])) return entries[0][field];
    return undefined;
  };
  const cluster = clusterName ? named(doc, 'clusters', 'cluster', clusterName) : only('clusters', 'cluster');
  if (!cluster) throw new Error(`invalid kubeconfig: cluster ${clusterName ? `"${clusterName}" ` : ''}not found`);
  const user = (userName ? named(doc, 'users', 'user', userName) : only('users', 'user')) ?? {};
  const server = str(cluster, 'server');
  if (!server) throw new Error('invalid kubeconfig: cluster has no server');
  const cfg: ClientConfig = { server };
  const ca = fileOrData(cluster, 'certificate-authority', dir);
  if (ca) cfg.caData = ca;
  if (cluster['insecure-skip-tls-verify'] === true) cfg.insecureSkipTLSVerify = true;
  const cert = fileOrData(user, 'client-certificate', dir);
  if (cert) cfg.certData = cert;
  const key = fileOrData(user, 'client-key', dir);
  if (key) cfg.keyData = key;
  const token = str(user, 'token') ?? (str(user, 'tokenFile') ? fs.readFileSync(path.resolve(dir, str(user, 'tokenFile') ?? ''), 'utf8').trim() : undefined);
  if (token) cfg.token = token;
  return cfg;
}

/** --master overrides the kubeconfig's server; with neither an error (kemu has no in-cluster config). */
export function loadClientConfig(opts: LoadClientConfigOptions): ClientConfig {
  let cfg: ClientConfig | undefined;
  if (opts.kubeconfig) {
    const file = path.resolve(opts.kubeconfig);
    cfg = parseKubeconfig(fs.readFileSync(file, 'utf8'), path.dirname(file));
  }
  if (opts.master) {
    cfg = cfg ? { ...cfg, server: opts.master } : { server: opts.master };
  }
  if (!cfg) throw new Error('invalid configuration: neither --kubeconfig nor --master was specified');
  cfg.server = cfg.server.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(cfg.server)) throw new Error(`invalid configuration: server "${cfg.server}" must start with http:// or https://`);
  cfg.qps = opts.qps ?? cfg.qps ?? 50;
  cfg.burst = opts.burst ?? cfg.burst ?? 100;
  if (opts.userAgent) cfg.userAgent = opts.userAgent;
  return cfg;
}

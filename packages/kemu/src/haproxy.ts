// HAProxy for the lab: one template (deploy/haproxy/haproxy.cfg.tmpl) rendered for docker-compose
// (deploy/haproxy/haproxy.cfg, servers by DNS name) and for `kemu up` (servers on their loopback addresses).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './topology.ts';

export const TEMPLATE = path.join(ROOT, 'deploy/haproxy/haproxy.cfg.tmpl');
export const COMPOSE_CONFIG = path.join(ROOT, 'deploy/haproxy/haproxy.cfg');

export interface HaproxyParams {
  origin: string;
  bind: string;
  statsBind: string;
  servers: { name: string; address: string }[];
  /** A resolvers section name to re-resolve server names through (docker's embedded DNS). */
  resolvers?: { name: string; nameserver: string };
}

export function renderHaproxyConfig(p: HaproxyParams, template = fs.readFileSync(TEMPLATE, 'utf8')): string {
  const resolvers = p.resolvers
    ? `\n# Docker's DNS: a replica that restarts with a new address is found again.\nresolvers ${p.resolvers.name}\n    nameserver dns ${p.resolvers.nameserver}\n    hold valid 1s\n    accepted_payload_size 8192\n`
    : '';
  const serverOptions = p.resolvers ? ` resolvers ${p.resolvers.name} init-addr last,libc,none` : '';
  const values: Record<string, string> = {
    origin: p.origin,
    bind: p.bind,
    stats_bind: p.statsBind,
    resolvers,
    server_options: serverOptions,
    // Health checks over TLS, the certificate not verified (a check, not a client); traffic stays TCP pass-through.
    servers: p.servers.map((s) => `    server ${s.name} ${s.address} check check-ssl verify none`).join('\n'),
  };
  const out = template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`haproxy template: unknown placeholder ${m}`);
    return v;
  });
  return out;
}

/** The compose variant: apiserver-0..N-1 by service name, port 6443, stats on :8404. */
export function composeHaproxyParams(apiservers = 3): HaproxyParams {
  return {
    origin: 'docker-compose: the lb service',
    bind: '*:6443',
    statsBind: '*:8404',
    servers: Array.from({ length: apiservers }, (_, i) => ({ name: `apiserver-${i}`, address: `apiserver-${i}:6443` })),
    resolvers: { name: 'docker', nameserver: '127.0.0.11:53' },
  };
}

export interface HostPort {
  host: string;
  port: number;
}

/** The `kemu up` variant: the balancer and its stats page on the lab's address, each apiserver on its own. */
export function localHaproxyParams(bind: HostPort, stats: HostPort, backends: (HostPort & { name: string })[]): HaproxyParams {
  return {
    origin: 'kemu up',
    bind: `${bind.host}:${bind.port}`,
    statsBind: `${stats.host}:${stats.port}`,
    servers: backends.map((b) => ({ name: b.name, address: `${b.host}:${b.port}` })),
  };
}

/** The haproxy executable on PATH, if any. */
export function findHaproxy(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'haproxy');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  for (const p of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy']) if (fs.existsSync(p)) return p;
  return undefined;
}

/** `haproxy -c -f file`: undefined when valid, else the checker's output. */
export function checkHaproxyConfig(haproxy: string, file: string): string | undefined {
  try {
    execFileSync(haproxy, ['-c', '-f', file], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    return `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}` || err.message;
  }
}

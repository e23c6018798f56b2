// Chooses and describes the lab's load balancer process: HAProxy when installed (or asked for), else the
// built-in balancer run as `kemu lb …` — either way a child process named "lb" that kemu supervises.
import fs from 'node:fs';
import path from 'node:path';
import type { ComponentSpec } from './topology.ts';
import { KEMU_BIN } from './topology.ts';
import { findHaproxy, localHaproxyParams, renderHaproxyConfig, type HostPort } from './haproxy.ts';

export type LbChoice = 'haproxy' | 'builtin' | 'auto';

export interface LbPlan {
  kind: 'haproxy' | 'builtin';
  spec: ComponentSpec;
  reason: string;
}

export function parseLbChoice(v: string): LbChoice {
  if (v === 'haproxy' || v === 'builtin' || v === 'auto') return v;
  throw new Error(`invalid argument "${v}" for "--lb" flag: must be haproxy, builtin or auto`);
}

export function planLb(
  choice: LbChoice,
  dataDir: string,
  bind: HostPort,
  stats: HostPort,
  backends: (HostPort & { name: string })[],
  loggingFormat = 'text',
  /** The lab's CA: the balancer's own health URL is https://, verified with it. */
  caFile?: string,
): LbPlan {
  const haproxy = choice === 'builtin' ? undefined : findHaproxy();
  if (choice === 'haproxy' && !haproxy) throw new Error('--lb=haproxy: no haproxy executable on PATH (apt-get install haproxy, or use --lb=builtin)');
  // TLS passes through: the balancer's health is an apiserver's /readyz over HTTPS.
  const health = { healthUrl: `https://${bind.host}:${bind.port}/readyz`, ...(caFile ? { healthCaFile: caFile } : {}) };
  if (haproxy) {
    const cfg = path.join(dataDir, 'haproxy.cfg');
    fs.writeFileSync(cfg, renderHaproxyConfig(localHaproxyParams(bind, stats, backends)));
    return {
      kind: 'haproxy',
      reason: `HAProxy (${haproxy}, config ${cfg}, stats http://${stats.host}:${stats.port}/)`,
      spec: { name: 'lb', kind: 'lb', command: haproxy, args: ['-db', '-f', cfg], ...health, address: bind.host, ports: { port: bind.port, stats: stats.port } },
    };
  }
  const args = [KEMU_BIN, 'lb', `--bind-address=${bind.host}`, `--port=${bind.port}`, ...backends.map((b) => `--backend=${b.name}=${b.host}:${b.port}`), '--check-ssl', `--logging-format=${loggingFormat}`];
  return {
    kind: 'builtin',
    reason: choice === 'builtin' ? 'the built-in TCP balancer (--lb=builtin)' : 'the built-in TCP balancer (haproxy is not installed)',
    spec: { name: 'lb', kind: 'lb', command: process.execPath, args, ...health, address: bind.host, ports: { port: bind.port } },
  };
}

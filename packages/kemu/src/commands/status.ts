// `kemu status`: one screen — each process's state, each apiserver's readiness, who holds each leader Lease,
// and each Node's Ready condition. `-o json` prints the same as JSON (for scripts and tests).
import { parseFlags } from '@kemu/base';
import { DATA_DIR_FLAG } from '../options.ts';
import { pidAlive, type ComponentRecord } from '../state.ts';
import { probe } from '../probe.ts';
import { clusterView, type ClusterView } from '../cluster-view.ts';
import { readLabTls, type LabTls } from '../lab-pki.ts';
import { loadLab, supervisorRunning } from './lab.ts';
import { UsageError } from './errors.ts';

const FLAGS = { ...DATA_DIR_FLAG, output: { type: 'string', default: '', usage: 'Output format: "" (table) or json' }, o: { type: 'string', default: '', usage: 'Short for --output' } } as const;

export interface ProcessView {
  name: string;
  kind: string;
  state: string;
  pid: number | null;
  /** "<address>:<port>" it serves on (its health/API port). */
  address: string | null;
  port: number | null;
  restarts: number;
  health: string;
}

export interface StatusView {
  dataDir: string;
  running: boolean;
  supervisorPid: number;
  server: string;
  lb: string;
  processes: ProcessView[];
  cluster: ClusterView;
}

async function processView(c: ComponentRecord, supervisorUp: boolean, tls: LabTls | undefined): Promise<ProcessView> {
  const alive = pidAlive(c.pid);
  let state: string = c.state;
  if (!supervisorUp) state = alive ? 'orphaned' : 'stopped';
  else if ((state === 'running' || state === 'starting') && !alive) state = 'dead';
  let health = '-';
  if (alive && c.healthUrl && state !== 'paused') {
    const r = await probe(c.healthUrl, 1500, tls);
    health = r.ok ? (c.kind === 'apiserver' ? 'ready' : 'healthy') : r.status ? `HTTP ${r.status}` : 'no answer';
  } else if (state === 'paused') health = 'paused';
  const port = c.ports['secure-port'] ?? c.ports.port ?? c.ports.client ?? null;
  const address = port === null ? null : `${c.address ?? '127.0.0.1'}:${port}`;
  return { name: c.name, kind: c.kind, state, pid: alive ? c.pid : null, address, port, restarts: c.restarts, health };
}

export async function collectStatus(dataDirFlag: string): Promise<StatusView> {
  const lab = loadLab(dataDirFlag);
  const running = supervisorRunning(lab);
  const tls = readLabTls(lab.dataDir);
  const processes = await Promise.all(lab.components.map((c) => processView(c, running, tls)));
  // The addon manager's Lease is listed when the lab runs one (kemu up --addon-managers).
  const extra = lab.components.some((c) => c.kind === 'addon-manager') ? ['kube-addon-manager'] : [];
  const cluster: ClusterView = running ? await clusterView(lab.server, tls, extra) : { leases: [], nodes: [], error: 'lab not running' };
  return { dataDir: lab.dataDir, running, supervisorPid: lab.supervisorPid, server: lab.server, lb: lab.lb, processes, cluster };
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 2))).join('').trimEnd()).join('\n');
}

export function renderStatus(s: StatusView): string {
  const out: string[] = [];
  out.push(
    s.running
      ? `kemu lab in ${s.dataDir}: running (kemu pid ${s.supervisorPid}), ${s.lb === 'haproxy' ? 'HAProxy' : 'built-in balancer'} at ${s.server}`
      : `kemu lab in ${s.dataDir}: not running`,
  );
  out.push('');
  out.push(table([['PROCESS', 'STATE', 'PID', 'ADDRESS', 'RESTARTS', 'HEALTH'], ...s.processes.map((p) => [p.name, p.state, String(p.pid ?? '-'), p.address ?? '-', String(p.restarts), p.health])]));
  if (s.running) {
    out.push('');
    if (s.cluster.error) out.push(`cluster: ${s.cluster.error}`);
    else {
      out.push(table([['LEASE (kube-system)', 'LEADER', 'HOLDER IDENTITY'], ...s.cluster.leases.map((l) => [l.name, l.component ?? '<none>', l.holder ?? '-'])]));
      out.push('');
      out.push(s.cluster.nodes.length ? table([['NODE', 'READY', 'REASON'], ...s.cluster.nodes.map((n) => [n.name, n.ready, n.reason ?? ''])]) : 'no nodes registered');
    }
  }
  return out.join('\n') + '\n';
}

export async function status(argv: string[]): Promise<number> {
  const f = parseFlags(FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu status takes no arguments (got ${f._.join(' ')})`);
  const format = f.output || f.o;
  if (format !== '' && format !== 'json') throw new UsageError(`unknown output format "${format}" (want json)`);
  const s = await collectStatus(f['data-dir']);
  process.stdout.write(format === 'json' ? JSON.stringify(s, null, 2) + '\n' : renderStatus(s));
  return 0;
}

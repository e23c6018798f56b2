// DIR/kemu.json: what `kemu up` is running (pids, ports, names, states), so other kemu commands can act on it.
// Written atomically (temp file + rename) on every change; read through a parser that trusts nothing.
import fs from 'node:fs';
import path from 'node:path';
import type { ComponentKind } from './topology.ts';

export type ProcessState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'killed' | 'paused' | 'exited';

export interface ComponentRecord {
  name: string;
  kind: ComponentKind;
  pid: number | null;
  state: ProcessState;
  restarts: number;
  /** The loopback address its ports are on. */
  address?: string;
  ports: Record<string, number>;
  healthUrl?: string;
  log: string;
  lastExit?: string;
}

export interface LabState {
  version: 1;
  supervisorPid: number;
  dataDir: string;
  server: string;
  lb: 'haproxy' | 'builtin';
  controlSocket: string;
  kubeconfig: string;
  startedAt: string;
  components: ComponentRecord[];
}

export function statePath(dataDir: string): string {
  return path.join(dataDir, 'kemu.json');
}

export function writeState(dataDir: string, state: LabState): void {
  const file = statePath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

export class StateError extends Error {}

/** Reads DIR/kemu.json, or throws a StateError saying what is wrong. */
export function readState(dataDir: string): LabState {
  const file = statePath(dataDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new StateError(`no lab in ${dataDir} (${file} not found); start one with: kemu up --data-dir ${dataDir}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new StateError(`${file} is not valid JSON`);
  }
  return parseState(raw, file);
}

const KINDS: readonly string[] = ['lb', 'etcd', 'apiserver', 'controller-manager', 'scheduler', 'addon-manager', 'worker', 'cluster-autoscaler', 'metrics-server'];
const STATES: readonly string[] = ['starting', 'running', 'restarting', 'stopping', 'stopped', 'killed', 'paused', 'exited'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseState(raw: unknown, where = 'kemu.json'): LabState {
  const bad = (what: string) => new StateError(`${where}: ${what}`);
  if (!isRecord(raw) || raw.version !== 1) throw bad('unsupported or missing "version"');
  const str = (o: Record<string, unknown>, k: string): string => {
    const v = o[k];
    if (typeof v !== 'string') throw bad(`"${k}" must be a string`);
    return v;
  };
  if (typeof raw.supervisorPid !== 'number') throw bad('"supervisorPid" must be a number');
  if (raw.lb !== 'haproxy' && raw.lb !== 'builtin') throw bad('"lb" must be haproxy or builtin');
  if (!Array.isArray(raw.components)) throw bad('"components" must be a list');
  const components = raw.components.map((c: unknown): ComponentRecord => {
    if (!isRecord(c)) throw bad('a component is not an object');
    const kind = str(c, 'kind');
    const state = str(c, 'state');
    if (!KINDS.includes(kind)) throw bad(`unknown kind "${kind}"`);
    if (!STATES.includes(state)) throw bad(`unknown state "${state}"`);
    const ports: Record<string, number> = {};
    if (isRecord(c.ports)) for (const [k, v] of Object.entries(c.ports)) if (typeof v === 'number') ports[k] = v;
    const rec: ComponentRecord = {
      name: str(c, 'name'),
      kind: kind as ComponentKind,
      pid: typeof c.pid === 'number' ? c.pid : null,
      state: state as ProcessState,
      restarts: typeof c.restarts === 'number' ? c.restarts : 0,
      ports,
      log: str(c, 'log'),
    };
    if (typeof c.address === 'string') rec.address = c.address;
    if (typeof c.healthUrl === 'string') rec.healthUrl = c.healthUrl;
    if (typeof c.lastExit === 'string') rec.lastExit = c.lastExit;
    return rec;
  });
  return {
    version: 1,
    supervisorPid: raw.supervisorPid,
    dataDir: str(raw, 'dataDir'),
    server: str(raw, 'server'),
    lb: raw.lb,
    controlSocket: str(raw, 'controlSocket'),
    kubeconfig: str(raw, 'kubeconfig'),
    startedAt: str(raw, 'startedAt'),
    components,
  };
}

/** True when a process with this pid exists (signal 0 probes without touching it). */
export function pidAlive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

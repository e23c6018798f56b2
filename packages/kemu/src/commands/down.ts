// `kemu down`: stops a running lab through its supervisor; if the supervisor is gone (killed), signals the
// recorded pids itself — SIGTERM, then SIGKILL after a grace — so no process is left behind either way.
import { parseFlags } from '@kemu/base';
import { DATA_DIR_FLAG } from '../options.ts';
import { pidAlive, writeState } from '../state.ts';
import { sendControl, ControlError } from '../control.ts';
import { signalGroup } from '../supervisor.ts';
import { loadLab, supervisorRunning } from './lab.ts';
import { UsageError } from './errors.ts';

const FLAGS = { ...DATA_DIR_FLAG, 'grace-period': { type: 'duration', default: 15_000, usage: 'SIGTERM → SIGKILL grace when the supervisor is gone' } } as const;

async function waitGone(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some(pidAlive)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

export async function down(argv: string[]): Promise<number> {
  const f = parseFlags(FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu down takes no arguments (got ${f._.join(' ')})`);
  const lab = loadLab(f['data-dir']);
  const pids = lab.components.map((c) => c.pid).filter((p): p is number => typeof p === 'number');
  if (supervisorRunning(lab)) {
    try {
      await sendControl(lab.controlSocket, 'down', undefined, 120_000);
    } catch (e) {
      if (!(e instanceof ControlError)) throw e;
      // The supervisor may exit before its answer arrives; signal it and wait.
      signalGroup(lab.supervisorPid, 'SIGTERM');
    }
    if (!(await waitGone([lab.supervisorPid], 60_000))) signalGroup(lab.supervisorPid, 'SIGKILL');
  }
  const left = pids.filter(pidAlive);
  if (left.length) {
    for (const p of left) signalGroup(p, 'SIGCONT');
    for (const p of left) signalGroup(p, 'SIGTERM');
    if (!(await waitGone(left, f['grace-period']))) for (const p of left.filter(pidAlive)) signalGroup(p, 'SIGKILL');
    await waitGone(left, 5_000);
    writeState(lab.dataDir, { ...lab, components: lab.components.map((c) => ({ ...c, pid: null, state: 'stopped' })) });
  }
  const still = [lab.supervisorPid, ...pids].filter(pidAlive);
  if (still.length) {
    process.stderr.write(`kemu down: processes still alive: ${still.join(', ')}\n`);
    return 1;
  }
  process.stdout.write(`lab in ${lab.dataDir} stopped\n`);
  return 0;
}

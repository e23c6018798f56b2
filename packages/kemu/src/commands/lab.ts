// Shared by the commands that act on a running lab: find it from --data-dir and reach its supervisor.
import { parseFlags } from '@kemu/base';
import { DATA_DIR_FLAG, resolveDataDir } from '../options.ts';
import { readState, pidAlive, type LabState } from '../state.ts';
import { sendControl, type Action } from '../control.ts';
import { UsageError } from './errors.ts';

export function loadLab(dataDirFlag: string): LabState {
  return readState(resolveDataDir(dataDirFlag));
}

export function supervisorRunning(s: LabState): boolean {
  return pidAlive(s.supervisorPid);
}

/** `kemu stop|kill|pause|unpause|start <name>`: asks the supervisor, which does it and tracks the state. */
export async function componentAction(action: Exclude<Action, 'down'>, argv: string[]): Promise<number> {
  const f = parseFlags(DATA_DIR_FLAG, argv);
  const name = f._[0];
  if (!name || f._.length > 1) throw new UsageError(`usage: kemu ${action} <name> [--data-dir DIR]`);
  const lab = loadLab(f['data-dir']);
  if (!supervisorRunning(lab)) throw new UsageError(`the lab in ${lab.dataDir} is not running (kemu pid ${lab.supervisorPid} is gone)`);
  if (!lab.components.some((c) => c.name === name))
    throw new UsageError(`no component named "${name}"; known: ${lab.components.map((c) => c.name).join(', ')}`);
  const msg = await sendControl(lab.controlSocket, action, name);
  process.stdout.write(`${msg}\n`);
  return 0;
}

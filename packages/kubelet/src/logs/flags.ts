// The kubelet's container log flags (KubeletConfiguration containerLogMaxSize / containerLogMaxFiles).
import { tryParseQuantity } from '@kemu/api';

export const LOG_FLAGS = {
  'container-log-max-size': { type: 'string', default: '10Mi', usage: 'Set the maximum size (e.g. 10Mi) of container log file before it is rotated. Emulated: each container instance keeps its newest records up to this size.' },
  'container-log-max-files': { type: 'int', default: 5, usage: 'Set the maximum number of container log files that can be present for a container. The number must be >= 2. Emulated: accepted; the current and previous instance are kept.' },
} as const;

/** --container-log-max-size in bytes; throws with the flag's name on a bad value. */
export function containerLogMaxBytes(flags: { 'container-log-max-size': string; 'container-log-max-files': number }): number {
  // The container log manager's checks (NewContainerLogManager).
  if (flags['container-log-max-files'] <= 1) throw new Error(`invalid MaxFiles ${flags['container-log-max-files']}, must be > 1`);
  const q = tryParseQuantity(flags['container-log-max-size']);
  if (q === undefined) throw new Error(`failed to parse container log max size "${flags['container-log-max-size']}": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  return Math.max(1, Math.floor(q));
}

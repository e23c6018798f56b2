// Structured logs (pino, JSON lines on stderr like klog), with the level chosen by Kubernetes' --v:
// 0-1 info, 2-3 debug (per-request lines), 4+ trace.
import { pino, type Logger } from 'pino';

export type { Logger };

export function levelForVerbosity(v: number): 'info' | 'debug' | 'trace' {
  if (v >= 4) return 'trace';
  if (v >= 2) return 'debug';
  return 'info';
}

export function createLogger(component: string, v = 0, extra: Record<string, unknown> = {}): Logger {
  return pino({ level: levelForVerbosity(v), base: { component, ...extra } }, pino.destination({ fd: 2, sync: false }));
}

/** A logger that drops everything (tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

import { describe, expect, it } from 'vitest';
import { createLogger, logSync, loggingFormatError, type LoggingFormat } from './log.ts';

function collect(format: LoggingFormat, v = 0) {
  const lines: string[] = [];
  const logger = createLogger('test', v, {}, { format, destination: { write: (l: string) => lines.push(l) } });
  return { logger, lines };
}

const TEXT_LINE = /^([IWEF])(\d{4}) (\d\d:\d\d:\d\d\.\d{6}) {1,}(\d+) ([^ :]+:\d+)\] (.*)\n$/;

describe('createLogger (text)', () => {
  it('writes klog lines with this file as the caller and the process id', () => {
    const { logger, lines } = collect('text');
    logger.child({ lease: 'kube-system/kube-scheduler' }).info({ identity: 'a_1' }, 'successfully acquired lease');
    const m = TEXT_LINE.exec(lines[0] ?? '');
    expect(m, lines[0]).not.toBeNull();
    expect(m?.[1]).toBe('I');
    expect(m?.[4]).toBe(String(process.pid));
    expect(m?.[5]).toMatch(/^log\.test\.ts:\d+$/);
    expect(m?.[6]).toBe('"successfully acquired lease" lease="kube-system/kube-scheduler" identity="a_1"');
  });

  it('maps levels to klog severities and --v: debug only from --v=2, trace from --v=4', () => {
    const at0 = collect('text', 0);
    at0.logger.debug('hidden');
    at0.logger.warn({ err: 'x' }, 'careful');
    at0.logger.error(new Error('bad'), 'request failed');
    expect(at0.lines.map((l) => l[0])).toEqual(['W', 'E']);
    expect(at0.lines[1]).toContain('] "request failed" err="bad"');
    const at2 = collect('text', 2);
    at2.logger.debug({ verb: 'GET', code: 200 }, 'HTTP');
    at2.logger.trace('hidden');
    expect(at2.lines).toHaveLength(1);
    expect(at2.lines[0]).toMatch(/^I.*\] "HTTP" verb="GET" code=200\n$/);
  });

  it('prints a bare message as klog.Infof does, unquoted', () => {
    const { logger, lines } = collect('text');
    logger.info('attempting to acquire leader lease kube-system/kube-scheduler...');
    expect(lines[0]).toMatch(/\] attempting to acquire leader lease kube-system\/kube-scheduler\.\.\.\n$/);
  });

  it('names the caller of a fatal line too (pino wraps fatal once more)', () => {
    const { logger, lines } = collect('text');
    logger.fatal({ err: 'listen EADDRINUSE' }, 'kube-apiserver failed to start');
    expect(lines[0]).toMatch(/^F\d{4} .* log\.test\.ts:\d+\] "kube-apiserver failed to start" err="listen EADDRINUSE"\n$/);
  });

  it('logSync writes at once, in the logger\'s format', () => {
    const { logger, lines } = collect('text');
    logSync(logger, 'error', {}, 'leaderelection lost');
    expect(lines[0]).toMatch(/^E\d{4} .* log\.test\.ts:\d+\] "leaderelection lost"\n$/);
  });
});

describe('createLogger (json)', () => {
  it('writes component-base JSON lines', () => {
    const { logger, lines } = collect('json', 2);
    logger.child({ lease: 'kube-system/kube-scheduler' }).info({ identity: 'a_1' }, 'successfully acquired lease');
    logger.debug({ verb: 'GET' }, 'HTTP');
    logger.error({ err: 'boom', pod: 'default/a' }, 'failed');
    const [info, debug, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(info ?? {})).toEqual(['ts', 'caller', 'msg', 'v', 'lease', 'identity']);
    expect(info).toMatchObject({ msg: 'successfully acquired lease', v: 0, lease: 'kube-system/kube-scheduler', identity: 'a_1' });
    expect(info?.caller).toMatch(/^src\/log\.test\.ts:\d+$/);
    expect(Math.abs((info?.ts as number) - Date.now())).toBeLessThan(60_000);
    expect(debug).toMatchObject({ msg: 'HTTP', v: 2, verb: 'GET' });
    expect(error).toEqual({ ts: error?.ts, caller: error?.caller, msg: 'failed', pod: 'default/a', err: 'boom' });
  });
});

describe('--logging-format', () => {
  it('accepts text and json and refuses others with Kubernetes\' message', () => {
    expect(loggingFormatError('text')).toBeUndefined();
    expect(loggingFormatError('json')).toBeUndefined();
    expect(loggingFormatError('xml')).toBe('format: Invalid value: "xml": Unsupported log format');
  });
});

import { describe, expect, it } from 'vitest';
import { argvBehaviour, containerBehaviour, parseSleep, preStopMs, scriptBehaviour, shellWords } from './command.ts';

describe('argvBehaviour', () => {
  const cases: [string[], number | null, number][] = [
    [[], null, 0],
    [['nginx', '-g', 'daemon off;'], null, 0],
    [['sleep', '5'], 5000, 0],
    [['/bin/sleep', '1.5'], 1500, 0],
    [['sleep', '2m'], 120_000, 0],
    [['sleep', 'infinity'], null, 0],
    [['true'], 0, 0],
    [['false'], 0, 1],
    [['sh', '-c', 'sleep 2; exit 3'], 2000, 3],
    [['/bin/sh', '-c', 'echo hi && sleep 1 && sleep 2'], 3000, 0],
    [['sh', '-c', 'echo start; false'], 0, 1],
    [['bash', '-c', 'while true; do sleep 1; done'], null, 0],
    [['sh', '-c', 'exec nginx'], null, 0],
    [['sh', '-c', 'trap "exit 0" TERM; sleep 10 & wait'], null, 0],
    [['sh', '-c', 'sleep 1; exit'], 1000, 0],
    [['sh', '-c', "echo 'a;b'; exit 7"], 0, 7],
    [['sh', '-c', 'tail -f /dev/null'], null, 0],
    [['sh', '-c', 'sh -c "sleep 3"; exit 1'], 3000, 1],
  ];
  it.each(cases)('%j → runMs %s exit %s', (argv, runMs, exitCode) => {
    const b = argvBehaviour(argv);
    expect(b.runMs).toBe(runMs);
    if (runMs !== null) expect(b.exitCode).toBe(exitCode);
  });
});

describe('helpers', () => {
  it('parses sleep arguments', () => {
    expect(parseSleep('10')).toBe(10);
    expect(parseSleep('1h')).toBe(3600);
    expect(parseSleep('x')).toBeUndefined();
  });
  it('splits shell words with quotes', () => {
    expect(shellWords(`echo "a b" 'c' d`)).toEqual(['echo', 'a b', 'c', 'd']);
  });
  it('reads scripts', () => {
    expect(scriptBehaviour('exit 300').exitCode).toBe(300 & 255);
  });
});

describe('containerBehaviour', () => {
  it('annotations override the command, per container overriding per pod', () => {
    const c = { name: 'web', image: 'nginx' };
    expect(containerBehaviour(c, { 'kemu.dev/run-seconds': '4' })).toEqual({ runMs: 4000, exitCode: 0, stopMs: 0 });
    expect(containerBehaviour(c, { 'kemu.dev/run-seconds': '4', 'kemu.dev/run-seconds.web': '6' }).runMs).toBe(6000);
    expect(containerBehaviour(c, { 'kemu.dev/exit-code': '2' })).toEqual({ runMs: 0, exitCode: 2, stopMs: 0 });
    expect(containerBehaviour(c, { 'kemu.dev/termination-seconds': '3' }).stopMs).toBe(3000);
    expect(containerBehaviour({ ...c, command: ['sleep', '9'] }, { 'kemu.dev/exit-code': '1' })).toEqual({ runMs: 9000, exitCode: 1, stopMs: 0 });
  });
  it('reads preStop hooks', () => {
    expect(preStopMs({ name: 'a', lifecycle: { preStop: { sleep: { seconds: 5 } } } })).toBe(5000);
    expect(preStopMs({ name: 'a', lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 2'] } } } })).toBe(2000);
    expect(preStopMs({ name: 'a' })).toBe(0);
  });
});

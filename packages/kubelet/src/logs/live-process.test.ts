// A container's own command that talks to the network runs live: the walkthrough's load generator prints OK!
// for each answer, really sleeps between requests, leaves the event loop free, and stops when the container
// does; a script that ends reports its exit code.
import { describe, expect, it } from 'vitest';
import { containerProgram } from '../pods/program.ts';
import { runProcess } from '../shell/interpreter.ts';
import type { HttpExchange, ShellNetwork } from '../shell/network.ts';
import { LiveProcess } from './live-process.ts';
import { LogInstance } from './store.ts';

const LOAD = 'while sleep 0.01; do wget -q -O- http://php-apache; done';

function network(seen: HttpExchange[]): ShellNetwork {
  return {
    request: async (req) => {
      seen.push(req);
      if (req.host !== 'php-apache') return { kind: 'error', error: 'unknown-host' };
      return { kind: 'response', address: '10.96.0.20', status: 200, statusText: 'OK', httpVersion: '1.1', headers: [], body: 'OK!' };
    },
  };
}

function start(script: string, seen: HttpExchange[], onExit = () => {}) {
  const program = containerProgram({ name: 'load-generator', image: 'busybox:1.28', command: ['/bin/sh', '-c', script] }, { name: 'load-generator', namespace: 'default' });
  expect(program.live).toBeDefined();
  const log = new LogInstance('c1');
  const steps = program.live?.(Date.now(), '10.244.0.9', network(seen));
  if (!steps) throw new Error('not live');
  return { log, process: new LiveProcess(steps, log, () => Date.now(), onExit) };
}

const text = (log: LogInstance) => log.records.map((r) => r.text).join('');

async function waitFor(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !cond(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('live container processes', () => {
  it('runs the load generator against the network, sleeping for real, without holding the event loop', async () => {
    const seen: HttpExchange[] = [];
    const { log, process } = start(LOAD, seen);
    const t0 = Date.now();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    await waitFor('20 answers', () => seen.length >= 20);
    const elapsed = Date.now() - t0;
    clearInterval(ticker);
    expect(text(log)).toMatch(/^(OK!)+$/);
    expect(seen[0]).toMatchObject({ method: 'GET', host: 'php-apache', port: 80, path: '/' });
    // Each round sleeps 10 ms: 20 rounds take at least 200 ms, and timers ran meanwhile.
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(ticks).toBeGreaterThan(5);
    expect(process.outlook()).toEqual({ recheckAt: undefined });
    process.stop();
    const n = seen.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.length).toBeLessThanOrEqual(n + 1);
    expect(log.finished).toBe(true);
  });

  it('reports the exit of a script that ends, with wget errors as busybox prints them', async () => {
    const seen: HttpExchange[] = [];
    let exited = false;
    const { log, process } = start('wget -q -O- http://php-apache; echo; wget -q -O- http://nosuch || exit 3', seen, () => (exited = true));
    await waitFor('the exit', () => exited);
    expect(process.outlook()).toMatchObject({ exitCode: 3 });
    expect(text(log)).toBe("OK!\nwget: bad address 'nosuch'\n");
  });

  it('a loop of requests without a sleep is paced, not taken for a spin', async () => {
    const seen: HttpExchange[] = [];
    const { process } = start('while true; do wget -q -O- http://php-apache; done', seen);
    await new Promise((r) => setTimeout(r, 300));
    process.stop();
    // At most one exchange per 5 ms.
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.length).toBeLessThanOrEqual(62);
  });

  it('in virtual time (no network) the same loop runs on silently instead of being looked ahead of forever', () => {
    const events = runProcess(['/bin/sh', '-c', LOAD], { startedAt: 0, env: {}, hostname: 'x', endsByItself: (n) => n === 'wget' });
    expect(events.next().value).toMatchObject({ kind: 'forever' });
  });

  it('only commands that call wget or curl run live', () => {
    const live = (script: string) => containerProgram({ name: 'c', image: 'busybox', command: ['sh', '-c', script] }, { name: 'p' }).live !== undefined;
    expect([live(LOAD), live('curl -s web:8080'), live('/usr/bin/wget http://x'), live('echo wgetting; sleep 1'), live('echo hi')]).toEqual([true, true, true, false, false]);
  });
});

// An attach session (the kubelet's ServeAttach): the main process' output from now on, on stdout/stderr.
// When the main process is a shell reading stdin (containers.ts' mainReadsStdin) and the client sends stdin,
// the session talks to that shell: what it writes also goes to the container's log, and when it exits (`exit`,
// end of input) the container exits with its status, as `kubectl run -it --rm … -- sh` expects. With
// stdinOnce the first attach's end of input is the shell's; without, a detach leaves it waiting for the next.
import type { Clock } from '@kemu/base';
import { ShellSession } from '../shell/interpreter.ts';
import type { Channels } from './channels.ts';
import { endContainer, mainReadsStdin, runsShellScript, type RunningContainer } from './containers.ts';
import { InteractiveShell } from './interactive.ts';
import { outcomeMessage } from './protocol.ts';

/** Ctrl-C as a terminal sends it, and the status of a shell killed by SIGINT (128 + 2). */
const ETX = 0x03;
const SIGINT_EXIT = 130;

/** A follower looks at the log at least this often. */
const FOLLOW_CHECK_MS = 1000;

export interface AttachRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
}

export async function runAttach(ch: Channels, c: RunningContainer, req: AttachRequest, clock: Clock): Promise<void> {
  const success = () => ch.finish(outcomeMessage(ch.protocol, [], 0));
  if (req.stdin && mainReadsStdin(c)) {
    const session = (c.state.mainShell ??= new ShellSession(c.state.context));
    const stop = new AbortController();
    const shell = new InteractiveShell(session, {
      tty: ch.tty,
      signal: stop.signal,
      write: (stream, text) => {
        c.runtime.process?.log.append(clock.now(), stream, text);
        if ((stream === 'stdout' && req.stdout) || (stream === 'stderr' && req.stderr) || ch.tty) ch.write(stream, text);
      },
    });
    ch.on({
      ...(ch.tty ? { resize: (size) => session.resize(size) } : {}),
      stdin: (d) => shell.input(d),
      stdinEnd: () => ((c.spec as { stdinOnce?: boolean }).stdinOnce || !ch.signal.aborted ? shell.end() : stop.abort()),
    });
    shell.start();
    const code = await shell.done;
    if (code === undefined) return;
    endContainer(c, code, clock.now());
    return success();
  }
  // Output only: the main process' log from now until it ends or the client leaves.
  const log = c.runtime.process?.log;
  if (!log) return success();
  // Ctrl-C typed on the terminal (`kubectl run -it`) is SIGINT to the foreground process: a shell script dies of it.
  if (req.stdin && ch.tty && runsShellScript(c)) ch.on({ stdin: (d) => void (d.includes(ETX) && endContainer(c, SIGINT_EXIT, clock.now())) });
  let cursor = log.end;
  while (!ch.signal.aborted && !log.finished) {
    await log.changed(FOLLOW_CHECK_MS);
    log.pump(clock.now());
    for (const r of log.since(cursor)) if ((r.stream === 'stdout' && req.stdout) || (r.stream === 'stderr' && req.stderr)) ch.write(r.stream, r.text);
    cursor = log.end;
  }
  success();
}

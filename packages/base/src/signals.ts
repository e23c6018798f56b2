// Graceful shutdown on SIGTERM/SIGINT: run the handlers once (e.g. release a Lease), then exit.
export function onShutdown(handler: (signal: NodeJS.Signals) => Promise<void> | void, exitCode = 0): void {
  let done = false;
  const run = (signal: NodeJS.Signals) => {
    if (done) return;
    done = true;
    Promise.resolve()
      .then(() => handler(signal))
      .catch(() => undefined)
      .finally(() => process.exit(exitCode));
  };
  process.on('SIGTERM', run);
  process.on('SIGINT', run);
}

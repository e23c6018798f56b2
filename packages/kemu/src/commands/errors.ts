// A command-line mistake: printed without a stack, exit code 2 (as Kubernetes binaries do for bad flags).
export class UsageError extends Error {}

// @kemu/base: what every kemu binary shares: flags with Kubernetes' syntax, Go durations, pino logging
// keyed on --v, the health/metrics server, and graceful shutdown.
export * from './duration.ts';
export * from './flags.ts';
export * from './log.ts';
export * from './health.ts';
export * from './signals.ts';
export * from './clock.ts';

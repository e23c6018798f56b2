// @kemu/base: what every kemu binary shares: flags with Kubernetes' syntax, Go durations, klog-style logging
// keyed on --v and --logging-format, the health/metrics server, and graceful shutdown.
export * from './duration.ts';
export * from './flags.ts';
export * from './log.ts';
export * from './health.ts';
export * from './signals.ts';
export * from './clock.ts';
export { goQuote } from './log-format.ts';
export * from './ip.ts';
export * from './feature-gates.ts';
export * from './go-errors.ts';

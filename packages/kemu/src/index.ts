// @kemu/kemu: the lab launcher's building blocks (the CLI lives in main.ts). Guarantees: a component stopped or
// killed through kemu stays down until started again; one that fails is restarted with back-off; `down` leaves
// no process behind.
export * from './balancer.ts';
export * from './haproxy.ts';
export * from './lab-pki.ts';
export * from './lab-bootstrap.ts';
export * from './bootstrap-token.ts';
export * from './bootstrap-objects.ts';
export * from './token-store.ts';
export * from './probe.ts';
export * from './state.ts';
export * from './topology.ts';
export * from './cluster-view.ts';
export { controlSocketPath, sendControl } from './control.ts';
export { signalGroup } from './supervisor.ts';

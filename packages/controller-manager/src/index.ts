// @kemu/controller-manager: kube-controller-manager's controllers behind one contract (controller.ts) and one
// registry (registry.ts). Guarantees: controllers run only while this process holds the leader Lease, stop at
// once when it is lost, and never act on a stale cache in a way that duplicates work (expectations).
export type * from './controller.ts';
export * from './registry.ts';
export * from './options.ts';
export { KeyedWorker } from './controllers/base.ts';

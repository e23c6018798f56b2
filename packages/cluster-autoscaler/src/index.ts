// @kemu/cluster-autoscaler: Kubernetes' cluster-autoscaler for kemu's emulated node groups. Guarantees: a group is
// never asked to grow past its max nor shrink below its min; pods are simulated with the scheduler's own filter
// plugins (@kemu/scheduler-framework), so "fits" means what kube-scheduler means; nodes still being provisioned
// count as capacity (the target size lives with the cloud), so a new leader does not provision twice; a drain
// evicts through the Eviction API and a PodDisruptionBudget refusal (429) keeps the node.
export type { CloudProvider, NodeGroup } from './cloudprovider/interface.ts';
export { planScaleUp, type ScaleUpPlan } from './scale-up.ts';
export { choose, parseExpanders, type ExpanderName } from './expander.ts';
export { PredicateChecker } from './simulator/predicates.ts';

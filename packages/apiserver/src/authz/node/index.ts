// The Node authorizer (--authorization-mode=Node): kubelets (`system:node:<name>` in `system:nodes`) read
// only what their bound pods reference and write only what NodeRestriction then narrows to themselves;
// everyone else gets no opinion. Wiring: `nodeAuthorizer(nodeGraphFromCacher(cacher, { keepUpMs: 1000 }))`.
export { nodeAuthorizer, NodeAuthorizer } from './node-authorizer.ts';
export { cacherPodFeed, nodeGraphFromCacher } from './node-graph-from-cacher.ts';
export { NodeGraph, type BoundPod, type NodeGraphView, type PathResult, type VertexType } from './graph.ts';
export { SyncedNodeGraph, type FeedPosition, type PodFeed } from './pod-feed.ts';
export type { PodEvent } from './graph-populator.ts';
export { NODE_RULES } from './node-rules.ts';

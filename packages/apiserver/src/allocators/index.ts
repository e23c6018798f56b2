// Service ClusterIP / NodePort allocation against the shared store (see service.ts).
export { ServiceAllocator, SERVICE_IP_PREFIX, NODE_PORT_PREFIX } from './service.ts';
export type { AllocationTxn, ServiceAllocatorOptions } from './service.ts';
export { serviceIPRange, parsePortRange } from './cidr.ts';

// kube-proxy's service health check (pkg/proxy/healthcheck service_health.go): for a LoadBalancer with
// externalTrafficPolicy Local, an HTTP server on its healthCheckNodePort tells load balancers whether this node
// has a ready endpoint of the Service: 200 with the count, else 503, and a small JSON document, on any path.
import type { Service } from '@kemu/api';
import type { ServiceTable } from './service-table.ts';

export interface HealthCheckAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The ready endpoints of the Service on `node` (distinct addresses over all its ports). */
export function localEndpointCount(table: ServiceTable, s: Service, node: string | undefined): number {
  return table.readyEndpoints(s, undefined).filter((e) => e.nodeName !== undefined && e.nodeName === node).length;
}

/** hcHandler's answer: the document is Go's dedented template, tabs and all. */
export function healthCheckAnswer(s: Service, localEndpoints: number, proxyHealthy = true): HealthCheckAnswer {
  const body = [
    '{',
    '\t"service": {',
    `\t\t"namespace": ${JSON.stringify(s.metadata.namespace ?? 'default')},`,
    `\t\t"name": ${JSON.stringify(s.metadata.name ?? '')}`,
    '\t},',
    `\t"localEndpoints": ${localEndpoints},`,
    `\t"serviceProxyHealthy": ${proxyHealthy}`,
    '}',
  ].join('\n');
  return {
    status: localEndpoints !== 0 && proxyHealthy ? 200 : 503,
    headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'X-Load-Balancing-Endpoint-Weight': String(localEndpoints) },
    body,
  };
}

/** The Service whose healthCheckNodePort is `port`, when it still needs one. */
export function healthCheckService(table: ServiceTable, port: number): Service | undefined {
  return table.allServices().find((s) => s.spec?.type === 'LoadBalancer' && s.spec.externalTrafficPolicy === 'Local' && s.spec.healthCheckNodePort === port);
}

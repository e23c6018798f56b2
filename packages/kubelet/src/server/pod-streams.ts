// The kubelet API's pod-port endpoints for the secure port's server: /portForward (an upgrade, port-forward.ts),
// kemu's /kemu/proxy (pod-proxy.ts, also upgraded for WebSockets) and /pods, with the node each path's pod runs on for the SubjectAccessReview.
import type { Pod } from '@kemu/api';
import type { HealthRoutes, HealthUpgrade } from '@kemu/base';
import type { ContainerLogsDeps } from './container-logs.ts';
import { POD_PROXY_PREFIX, podProxyRoutes, podProxyTarget, servePodProxyUpgrade } from './pod-proxy.ts';
import { portForwardTarget, servePortForward } from './port-forward.ts';

export function podStreamUpgrades(deps: ContainerLogsDeps): HealthUpgrade {
  return (req, socket, head, path) => {
    if (path.startsWith(POD_PROXY_PREFIX)) {
      servePodProxyUpgrade(req, socket, head, path, deps);
      return true;
    }
    if (path !== '/portForward' && !path.startsWith('/portForward/')) return false;
    servePortForward(req, socket, head, path, deps);
    return true;
  };
}

export interface PodStreamDeps extends ContainerLogsDeps {
  /** The pods of every node this process emulates (GET /pods). */
  listPods(): Pod[];
}

export function podStreamRoutes(deps: PodStreamDeps): HealthRoutes {
  const proxy = podProxyRoutes(deps);
  return (req, res, path) => {
    if (path === '/pods' || path === '/pods/') {
      // The kubelet's /pods: a PodList of the pods it runs, as it sees them.
      const body = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: deps.listPods() });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return true;
    }
    if (path === '/portForward' || path.startsWith('/portForward/')) {
      // Not an upgrade: the kubelet's answer to a port-forward request without the SPDY headers.
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('unable to upgrade: missing upgrade headers in request');
      return true;
    }
    return proxy(req, res, path);
  };
}

/** The node of the pod a /portForward or /kemu/proxy path names. */
export function podStreamNodeOf(path: string, findPod: ContainerLogsDeps['findPod']): string | undefined {
  const t = portForwardTarget(path) ?? podProxyTarget(path);
  return t ? findPod(t.namespace, t.pod)?.current.spec.nodeName : undefined;
}

// Which requests are long-running, as Kubernetes' BasicLongRunningRequestCheck decides with the
// kube-apiserver's sets: the watch and proxy verbs, and the attach, exec, proxy, log and portforward
// subresources. They are not counted against the inflight limits and have no --request-timeout.
import { boolParam } from './routes/request.ts';

const STREAMING_SUBRESOURCES = new Set(['attach', 'exec', 'log', 'portforward', 'proxy']);

/** `url` is the request target as received (path and query); `watch=` makes a watch only of a GET, as in Kubernetes' RequestInfo. */
export function isLongRunning(url: string, method = 'GET'): boolean {
  const q = url.indexOf('?');
  // watch=<anything but 0/false> is a watch, as Kubernetes' query conversion reads booleans.
  if (q >= 0 && method === 'GET' && boolParam(new URLSearchParams(url.slice(q + 1)), 'watch') === true) return true;
  const parts = (q < 0 ? url : url.slice(0, q)).split('/').filter((p) => p !== '');
  // After /api/<version> or /apis/<group>/<version>: [namespaces, ns,] resource, name, subresource.
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : [];
  if (rest[0] === 'watch' || rest[0] === 'proxy') return true;
  const sub = rest[0] === 'namespaces' && rest.length >= 4 ? rest[4] : rest[2];
  return sub !== undefined && STREAMING_SUBRESOURCES.has(sub);
}

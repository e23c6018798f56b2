// What `kemu status` asks the cluster (through the balancer): the leader-election Leases and the Nodes'
// Ready condition. Plain GETs with a deadline; every field read from the reply is narrowed, nothing trusted.
import http from 'node:http';
import https from 'node:https';
import { tlsRequestOptions, type ProbeTls } from './probe.ts';

export interface LeaseView {
  name: string;
  holder: string | null;
  /** The process named by the holder identity "<hostname>_<uuid>". */
  component: string | null;
  renewTime: string | null;
}

export interface NodeView {
  name: string;
  ready: string;
  reason: string | null;
}

export interface ClusterView {
  leases: LeaseView[];
  nodes: NodeView[];
  error?: string;
}

export const LEADER_LEASES = ['kube-controller-manager', 'kube-scheduler'] as const;

export function getJson(url: string, timeoutMs = 3000, tls?: ProbeTls): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { timeout: timeoutMs, agent: false, headers: { accept: 'application/json' }, ...tlsRequestOptions(url, tls) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs}ms`)));
    req.on('error', reject);
  });
}

function rec(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** "controller-manager-1_2bc8f705-…" → "controller-manager-1" (hostnames never contain "_"). */
export function holderComponent(holder: string | null): string | null {
  if (!holder) return null;
  const i = holder.indexOf('_');
  return i > 0 ? holder.slice(0, i) : holder;
}

export async function leaseHolder(server: string, name: string, tls?: ProbeTls): Promise<LeaseView> {
  const r = await getJson(`${server}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`, 3000, tls);
  if (r.status === 404) return { name, holder: null, component: null, renewTime: null };
  if (r.status !== 200) throw new Error(`GET lease ${name}: HTTP ${r.status}`);
  const spec = rec(rec(r.body).spec);
  const holder = strOrNull(spec.holderIdentity);
  return { name, holder, component: holderComponent(holder), renewTime: strOrNull(spec.renewTime) };
}

export async function nodes(server: string, tls?: ProbeTls): Promise<NodeView[]> {
  const r = await getJson(`${server}/api/v1/nodes`, 3000, tls);
  if (r.status !== 200) throw new Error(`GET nodes: HTTP ${r.status}`);
  const items = rec(r.body).items;
  if (!Array.isArray(items)) return [];
  return items.map((n: unknown) => {
    const name = strOrNull(rec(rec(n).metadata).name) ?? '?';
    const conds = rec(rec(n).status).conditions;
    const ready = Array.isArray(conds) ? conds.map(rec).find((c) => c.type === 'Ready') : undefined;
    return { name, ready: strOrNull(ready?.status) ?? 'Unknown', reason: strOrNull(ready?.reason) };
  });
}

/** The leader Leases and the Nodes; `extraLeases` names more Leases (a lab's kube-addon-manager). */
export async function clusterView(server: string, tls?: ProbeTls, extraLeases: readonly string[] = []): Promise<ClusterView> {
  try {
    const names = [...LEADER_LEASES, ...extraLeases];
    const [leases, ns] = await Promise.all([Promise.all(names.map((n) => leaseHolder(server, n, tls))), nodes(server, tls)]);
    return { leases, nodes: ns };
  } catch (e) {
    return { leases: [], nodes: [], error: e instanceof Error ? e.message : String(e) };
  }
}

// Node registration: create the Node; if it already exists (a restarted kubelet), adopt it and make sure the
// kubelet-owned labels are there. Registration is retried until it succeeds, as the kubelet does.
import { R, StatusError, type Node } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { KubeApi } from '../api.ts';

/** The registered Node, and whether this call created it (rather than adopting one that existed). */
export async function registerNode(client: KubeApi, node: Node, logger: Logger): Promise<{ node: Node; created: boolean }> {
  const name = node.metadata.name ?? '';
  try {
    const created = await client.create<Node>(R.nodes, undefined, node);
    logger.info({ node: name }, 'Successfully registered node');
    return { node: created, created: true };
  } catch (e) {
    if (!(e instanceof StatusError) || e.code !== 409) throw e;
  }
  const existing = await client.get<Node>(R.nodes, undefined, name);
  const want = node.metadata.labels ?? {};
  const have = existing.metadata.labels ?? {};
  const missing = Object.entries(want).filter(([k, v]) => have[k] !== v);
  if (missing.length === 0) return { node: existing, created: false };
  logger.info({ node: name }, 'Node was previously registered; updating its labels');
  const patched = await client.patch<Node>(R.nodes, undefined, name, { metadata: { labels: Object.fromEntries(missing) } }, 'merge');
  return { node: patched, created: false };
}

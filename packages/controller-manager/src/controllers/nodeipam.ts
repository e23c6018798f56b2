// node-ipam-controller (with --allocate-node-cidrs): gives every Node spec.podCIDRs — one subnet of each
// --cluster-cidr (one per family when dual-stack), of the family's node mask size — and spec.podCIDR (the first),
// released when the Node is deleted; --service-cluster-ip-range is kept out of the cluster CIDRs. The allocation
// map is rebuilt from the Nodes' existing podCIDRs before anything is handed out, so a new leader never repeats one.
import { R, type Node } from '@kemu/api';
import { parseCIDR } from '@kemu/base';
import { unwrapDeleted, type SharedInformer } from '@kemu/client';
import { CIDRSet, nodeMaskSizes, overlaps, parseClusterCIDRs } from './nodeipam-cidrs.ts';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

export class NodeIpamController implements Controller {
  readonly name = 'node-ipam-controller';
  private readonly nodes: SharedInformer<Node>;
  private readonly worker: KeyedWorker;
  private readonly sets: CIDRSet[] = [];
  /** node name → the CIDRs it holds, to release them when the Node goes. */
  private readonly byNode = new Map<string, string[]>();
  private rebuilt = false;

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.informerFor<Node>(R.nodes);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: 1, sync: (k) => this.sync(k) }).waitFor(this.nodes);
    if (!ctx.options['allocate-node-cidrs']) return;
    const cidrs = parseClusterCIDRs(ctx.options['cluster-cidr']);
    const masks = nodeMaskSizes(ctx.options, cidrs);
    cidrs.forEach((c, i) => this.sets.push(new CIDRSet(c, masks[i] ?? 0)));
    this.filterOutServiceRange();
    this.nodes.addEventHandler({
      onAdd: (n) => this.worker.add(n.metadata.name ?? ''),
      onUpdate: (_o, n) => this.worker.add(n.metadata.name ?? ''),
      onDelete: (obj) => this.worker.add(unwrapDeleted(obj).metadata.name ?? ''),
    });
  }

  /** Service ClusterIPs never become pod addresses: subnets overlapping --service-cluster-ip-range are taken. */
  private filterOutServiceRange(): void {
    const flag = this.ctx.options['service-cluster-ip-range'].trim();
    if (flag === '') return;
    for (const text of flag.split(',').slice(0, 2)) {
      const svc = parseCIDR(text);
      if (!svc) continue;
      for (const set of this.sets) if (overlaps(set.cluster, svc)) set.occupy(svc.text);
    }
  }

  async run(): Promise<void> {
    if (this.sets.length === 0) return;
    await this.worker.run();
  }

  private existing(n: Node): string[] {
    return n.spec?.podCIDRs?.length ? n.spec.podCIDRs : n.spec?.podCIDR ? [n.spec.podCIDR] : [];
  }

  /** occupyCIDRs: a Node's CIDRs, index by index, mark the matching sets' subnets as taken. */
  private occupy(n: Node): void {
    const name = n.metadata.name ?? '';
    const cidrs = this.existing(n);
    if (cidrs.length === 0) return;
    cidrs.forEach((cidr, i) => {
      const set = this.sets[i];
      if (!set) throw new Error(`node:${name} has an allocated cidr: ${cidr} at index:${i} that does not exist in cluster cidrs configuration`);
      try {
        set.occupy(cidr);
      } catch (e) {
        throw new Error(`failed to mark cidr[${cidr}] at idx [${i}] as occupied for node: ${name}: ${(e as Error).message}`);
      }
    });
    this.byNode.set(name, cidrs);
  }

  private rebuild(): void {
    // Before the first allocation: every CIDR already on a Node is taken.
    this.rebuilt = true;
    for (const n of this.nodes.store.list()) {
      try {
        this.occupy(n);
      } catch (e) {
        this.ctx.logger.error({ node: n.metadata.name, err: String(e) }, 'Failed to mark cidr as occupied');
      }
    }
  }

  private release(name: string): void {
    for (const [i, cidr] of (this.byNode.get(name) ?? []).entries()) this.sets[i]?.release(cidr);
    this.byNode.delete(name);
  }

  private async sync(name: string): Promise<void> {
    if (this.sets.length === 0) return;
    if (!this.rebuilt) this.rebuild();
    const node = this.nodes.store.get(name);
    if (!node) return this.release(name);
    if (this.existing(node).length > 0) {
      if (JSON.stringify(this.byNode.get(name)) !== JSON.stringify(this.existing(node))) this.occupy(node);
      return;
    }
    let cidrs = this.byNode.get(name);
    if (!cidrs?.length) {
      const got: string[] = [];
      for (const [i, set] of this.sets.entries()) {
        const c = set.allocateNext();
        if (!c) {
          got.forEach((g, j) => this.sets[j]?.release(g));
          this.ctx.recorder.event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
          throw new Error(`failed to allocate cidr from cluster cidr at idx:${i}: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range`);
        }
        got.push(c);
      }
      cidrs = got;
      this.byNode.set(name, cidrs);
    }
    await this.ctx.client.patch(R.nodes, undefined, name, { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } }, 'merge');
    this.ctx.logger.info({ node: name, podCIDRs: cidrs }, 'Set node PodCIDR');
  }
}

export const nodeIpamDescriptor: ControllerDescriptor = {
  name: 'node-ipam-controller',
  serviceAccountName: 'node-controller',
  aliases: ['nodeipam'],
  enabledByDefault: true,
  create: (ctx) => new NodeIpamController(ctx),
};

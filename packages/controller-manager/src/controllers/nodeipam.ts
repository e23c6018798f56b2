// node-ipam-controller (with --allocate-node-cidrs): gives every Node a spec.podCIDR/podCIDRs of
// --node-cidr-mask-size out of --cluster-cidr, released when the Node is deleted. The allocation map is
// rebuilt from the Nodes' existing podCIDRs before anything is handed out, so a new leader never repeats one.
import { R, type Node } from '@kemu/api';
import { unwrapDeleted, type SharedInformer } from '@kemu/client';
import type { Controller, ControllerContext, ControllerDescriptor } from '../controller.ts';
import { KeyedWorker } from './base.ts';

function ipToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) throw new Error(`invalid IP address: ${ip}`);
  return (((p[0] ?? 0) << 24) | ((p[1] ?? 0) << 16) | ((p[2] ?? 0) << 8) | (p[3] ?? 0)) >>> 0;
}
function intToIp(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The subnets of one cluster CIDR, handed out lowest first. */
export class CIDRSet {
  private readonly base: number;
  private readonly count: number;
  private readonly used = new Set<number>();
  constructor(
    clusterCIDR: string,
    private readonly maskSize: number,
  ) {
    const [ip, bits] = clusterCIDR.split('/');
    const prefix = Number(bits);
    if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new Error(`invalid CIDR address: ${clusterCIDR}`);
    if (maskSize < prefix || maskSize > 32) throw new Error(`--node-cidr-mask-size ${maskSize} must be between ${prefix} and 32`);
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    this.base = (ipToInt(ip) & mask) >>> 0;
    this.count = 2 ** (maskSize - prefix);
  }
  private index(cidr: string): number | undefined {
    const [ip, bits] = cidr.split('/');
    if (!ip || Number(bits) !== this.maskSize) return undefined;
    let n: number;
    try {
      n = ipToInt(ip);
    } catch {
      return undefined;
    }
    const i = (n - this.base) / 2 ** (32 - this.maskSize);
    return Number.isInteger(i) && i >= 0 && i < this.count ? i : undefined;
  }
  /** Marks a CIDR as taken (a Node already has it); false when it is outside this range. */
  occupy(cidr: string): boolean {
    const i = this.index(cidr);
    if (i === undefined) return false;
    this.used.add(i);
    return true;
  }
  release(cidr: string): void {
    const i = this.index(cidr);
    if (i !== undefined) this.used.delete(i);
  }
  allocate(): string | undefined {
    for (let i = 0; i < this.count; i++) {
      if (!this.used.has(i)) {
        this.used.add(i);
        return `${intToIp((this.base + i * 2 ** (32 - this.maskSize)) >>> 0)}/${this.maskSize}`;
      }
    }
    return undefined;
  }
}

export class NodeIpamController implements Controller {
  readonly name = 'node-ipam-controller';
  private readonly nodes: SharedInformer<Node>;
  private readonly worker: KeyedWorker;
  private cidrs: CIDRSet | undefined;
  /** node name → the CIDR it holds, to release it when the Node goes. */
  private readonly byNode = new Map<string, string>();
  private rebuilt = false;

  constructor(private readonly ctx: ControllerContext) {
    this.nodes = ctx.informers.informerFor<Node>(R.nodes);
    this.worker = new KeyedWorker(ctx, { name: this.name, workers: 1, sync: (k) => this.sync(k) }).waitFor(this.nodes);
    if (!ctx.options['allocate-node-cidrs']) return;
    this.cidrs = new CIDRSet(ctx.options['cluster-cidr'], ctx.options['node-cidr-mask-size']);
    this.nodes.addEventHandler({
      onAdd: (n) => this.worker.add(n.metadata.name ?? ''),
      onUpdate: (_o, n) => this.worker.add(n.metadata.name ?? ''),
      onDelete: (obj) => this.worker.add(unwrapDeleted(obj).metadata.name ?? ''),
    });
  }

  async run(): Promise<void> {
    if (!this.cidrs) return;
    await this.worker.run();
  }

  private rebuild(): void {
    // Before the first allocation: every CIDR already on a Node is taken.
    this.rebuilt = true;
    for (const n of this.nodes.store.list()) {
      const cidr = n.spec?.podCIDR;
      if (cidr && this.cidrs?.occupy(cidr)) this.byNode.set(n.metadata.name ?? '', cidr);
    }
  }

  private async sync(name: string): Promise<void> {
    const cidrs = this.cidrs;
    if (!cidrs) return;
    if (!this.rebuilt) this.rebuild();
    const node = this.nodes.store.get(name);
    if (!node) {
      const held = this.byNode.get(name);
      if (held) cidrs.release(held);
      this.byNode.delete(name);
      return;
    }
    const existing = node.spec?.podCIDR;
    if (existing) {
      if (this.byNode.get(name) !== existing && cidrs.occupy(existing)) this.byNode.set(name, existing);
      return;
    }
    const held = this.byNode.get(name);
    const cidr = held ?? cidrs.allocate();
    if (!cidr) {
      this.ctx.recorder.event(node, 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
      throw new Error(`failed to allocate cidr from cluster cidr ${this.ctx.options['cluster-cidr']}: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range`);
    }
    this.byNode.set(name, cidr);
    await this.ctx.client.patch(R.nodes, undefined, name, { spec: { podCIDR: cidr, podCIDRs: [cidr] } }, 'merge');
    this.ctx.logger.info({ node: name, podCIDR: cidr }, 'Set node PodCIDR');
  }
}

export const nodeIpamDescriptor: ControllerDescriptor = {
  name: 'node-ipam-controller',
  serviceAccountName: 'node-controller',
  aliases: ['nodeipam'],
  enabledByDefault: true,
  create: (ctx) => new NodeIpamController(ctx),
};

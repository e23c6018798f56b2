// Why a pod fits nowhere, rendered exactly as Kubernetes' FitError: "0/N nodes are available: <prefilter msg>.
// <count reason, ...>. <postfilter msg>." with reasons counted per node and sorted as strings.
import type { Status } from './status.ts';

export interface Diagnosis {
  nodeToStatus: Map<string, Status>;
  unschedulablePlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

export function newDiagnosis(): Diagnosis {
  return { nodeToStatus: new Map(), unschedulablePlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
}

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

export class FitError extends Error {
  constructor(
    readonly podKey: string,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {
    super('');
    this.name = 'FitError';
    // The message is rendered on read: PostFilter adds to the diagnosis after construction.
    Object.defineProperty(this, 'message', { get: () => fitErrorMessage(this.numAllNodes, this.diagnosis) });
  }
}

/** Counts reasons over nodes: "2 Insufficient cpu, 1 node(s) had untolerated taint {…}" (sorted as strings). */
export function reasonHistogram(nodeToStatus: ReadonlyMap<string, Status>): string[] {
  const counts = new Map<string, number>();
  for (const st of nodeToStatus.values()) for (const r of st.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const out = [...counts].map(([r, n]) => `${n} ${r}`);
  // Go's sort.Strings: byte-wise order.
  out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return out;
}

export function fitErrorMessage(numAllNodes: number, d: Diagnosis): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg !== '') msg += ` ${d.preFilterMsg}.`;
  else {
    const hist = reasonHistogram(d.nodeToStatus);
    if (hist.length) msg += ` ${hist.join(', ')}.`;
  }
  if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}.`;
  return msg;
}

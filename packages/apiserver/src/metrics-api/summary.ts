// The part of a kubelet's /stats/summary (statsapi.Summary) metrics-server reads: node and container CPU rate
// and memory working set, with the time each was taken. Anything malformed is left out, never thrown.
export interface Usage {
  nanoCores: number;
  workingSetBytes: number;
}

export interface Summary {
  node: Usage & { time: number };
  pods: { namespace: string; name: string; time: number; containers: (Usage & { name: string })[] }[];
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function usageOf(o: Record<string, unknown>): (Usage & { time: number }) | undefined {
  const cpu = rec(o.cpu);
  const mem = rec(o.memory);
  const nanoCores = num(cpu.usageNanoCores);
  const workingSetBytes = num(mem.workingSetBytes);
  const time = Date.parse(str(cpu.time));
  if (nanoCores === undefined || workingSetBytes === undefined) return undefined;
  return { nanoCores, workingSetBytes, time: Number.isFinite(time) ? time : Date.now() };
}

export function parseSummary(body: unknown): Summary | undefined {
  const b = rec(body);
  const node = usageOf(rec(b.node));
  if (!node) return undefined;
  const pods = (Array.isArray(b.pods) ? b.pods : []).flatMap((p: unknown) => {
    const po = rec(p);
    const ref = rec(po.podRef);
    let time = 0;
    const containers = (Array.isArray(po.containers) ? po.containers : []).flatMap((c: unknown) => {
      const u = usageOf(rec(c));
      if (!u) return [];
      time = Math.max(time, u.time);
      return [{ name: str(rec(c).name), nanoCores: u.nanoCores, workingSetBytes: u.workingSetBytes }];
    });
    return [{ namespace: str(ref.namespace), name: str(ref.name), time: time || node.time, containers }];
  });
  return { node, pods };
}

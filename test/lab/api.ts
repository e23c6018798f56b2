// Test helper: tiny REST calls and a pod watch against the lab's balancer, each on a fresh TCP connection
// (so a stopped apiserver costs a request at most one reconnect, as a client would see through HAProxy).
import http from 'node:http';

export interface Reply {
  status: number;
  body: unknown;
}

export function call(server: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(`${server}${path}`, {
      method,
      agent: false,
      timeout: timeoutMs,
      headers: { accept: 'application/json', ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(data);
  });
}

export function rec(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function items(r: Reply): Record<string, unknown>[] {
  const it = rec(r.body).items;
  return Array.isArray(it) ? it.map(rec) : [];
}

export interface PodSeen {
  name: string;
  nodeName: string | undefined;
  deleting: boolean;
  phase: string | undefined;
}

export function podOf(obj: unknown): PodSeen {
  const o = rec(obj);
  const md = rec(o.metadata);
  const nodeName = rec(o.spec).nodeName;
  const phase = rec(o.status).phase;
  return {
    name: String(md.name),
    nodeName: typeof nodeName === 'string' && nodeName ? nodeName : undefined,
    deleting: typeof md.deletionTimestamp === 'string',
    phase: typeof phase === 'string' ? phase : undefined,
  };
}

/**
 * Watches pods in a namespace (optionally by label selector), keeping the current set; resumes from the last
 * resourceVersion when the stream breaks and re-lists on 410. `onChange` runs after every event.
 */
export class PodWatch {
  readonly pods = new Map<string, PodSeen>();
  private readonly ac = new AbortController();
  private rv = '';
  constructor(private readonly server: string, private readonly ns: string, private readonly selector: string, private readonly onChange: (w: PodWatch, ev: { type: string; pod: PodSeen; prev?: PodSeen }) => void) {}

  async start(): Promise<void> {
    await this.relist();
    void this.loop();
  }

  stop(): void {
    this.ac.abort();
  }

  private q(): string {
    return this.selector ? `labelSelector=${encodeURIComponent(this.selector)}` : '';
  }

  private async relist(): Promise<void> {
    const r = await call(this.server, 'GET', `/api/v1/namespaces/${this.ns}/pods?${this.q()}`);
    if (r.status !== 200) throw new Error(`list pods: ${r.status}`);
    this.pods.clear();
    for (const p of items(r)) {
      const pod = podOf(p);
      this.pods.set(pod.name, pod);
      this.onChange(this, { type: 'ADDED', pod });
    }
    this.rv = String(rec(rec(r.body).metadata).resourceVersion ?? '');
  }

  private async loop(): Promise<void> {
    while (!this.ac.signal.aborted) {
      try {
        const res = await fetch(`${this.server}/api/v1/namespaces/${this.ns}/pods?watch=true&resourceVersion=${this.rv}&${this.q()}`, { signal: this.ac.signal });
        if (!res.body) throw new Error('no body');
        let buf = '';
        const decoder = new TextDecoder();
        for await (const chunk of res.body) {
          buf += decoder.decode(chunk as Uint8Array, { stream: true });
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) await this.event(JSON.parse(line) as unknown);
          }
        }
      } catch {
        if (this.ac.signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async event(raw: unknown): Promise<void> {
    const ev = rec(raw);
    const type = String(ev.type);
    if (type === 'ERROR') {
      if (rec(ev.object).code === 410) await this.relist();
      return;
    }
    const rv = rec(rec(ev.object).metadata).resourceVersion;
    if (typeof rv === 'string') this.rv = rv;
    if (type === 'BOOKMARK') return;
    const pod = podOf(ev.object);
    const prev = this.pods.get(pod.name);
    if (type === 'DELETED') this.pods.delete(pod.name);
    else this.pods.set(pod.name, pod);
    this.onChange(this, prev ? { type, pod, prev } : { type, pod });
  }

  /** Pods that exist and are not being deleted. */
  live(): PodSeen[] {
    return [...this.pods.values()].filter((p) => !p.deleting);
  }
}

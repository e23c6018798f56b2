// Test helper: tiny REST calls and a pod watch against the lab's balancer, each on a fresh TCP connection
// (so a stopped apiserver costs a request at most one reconnect, as a client would see through HAProxy).
// The lab serves HTTPS: an https:// URL of a lab registered with trustLab is called with the lab's CA and its
// admin certificate (what DIR/kubeconfig holds), as kubectl does.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';

interface LabTrust {
  pki: string;
  agent?: Agent;
}
const trusted = new Map<string, LabTrust>();

/** URLs whose host starts with `hostPrefix` (a lab's /24, e.g. "127.123.45.") are the lab in dataDir's. */
export function trustLab(hostPrefix: string, dataDir: string): void {
  trusted.set(hostPrefix, { pki: path.join(dataDir, 'pki') });
}

/** The CA and admin certificate for an https:// URL of a trusted lab (read when first needed: kemu up makes them). */
export function labTlsFor(url: string): { ca: Buffer; cert: Buffer; key: Buffer } | undefined {
  const u = new URL(url);
  if (u.protocol !== 'https:') return undefined;
  for (const [prefix, t] of trusted) {
    if (!u.hostname.startsWith(prefix)) continue;
    return { ca: fs.readFileSync(path.join(t.pki, 'ca.pem')), cert: fs.readFileSync(path.join(t.pki, 'admin.pem')), key: fs.readFileSync(path.join(t.pki, 'admin-key.pem')) };
  }
  return undefined;
}

/** fetch() for the lab: its CA and admin certificate on https:// URLs. */
export function labFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const tls = labTlsFor(url);
  if (!tls) return undiciFetch(url, init);
  const t = [...trusted].find(([p]) => new URL(url).hostname.startsWith(p))?.[1] as LabTrust;
  t.agent ??= new Agent({ connect: tls });
  return undiciFetch(url, { ...init, dispatcher: t.agent });
}

export interface Reply {
  status: number;
  body: unknown;
}

export function call(server: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const url = `${server}${path}`;
    const req = (url.startsWith('https:') ? https : http).request(url, {
      method,
      agent: false,
      ...(labTlsFor(url) ?? {}),
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
  labels: Record<string, string>;
  nodeName: string | undefined;
  deleting: boolean;
  phase: string | undefined;
  /** What `kubectl get pods` shows in STATUS for a one-container pod: a waiting reason, or the phase. */
  status: string | undefined;
}

export function podOf(obj: unknown): PodSeen {
  const o = rec(obj);
  const md = rec(o.metadata);
  const nodeName = rec(o.spec).nodeName;
  const st = rec(o.status);
  const phase = typeof st.phase === 'string' ? st.phase : undefined;
  const cs = Array.isArray(st.containerStatuses) ? st.containerStatuses.map(rec) : [];
  const waiting = cs.map((c) => rec(rec(c.state).waiting).reason).find((r): r is string => typeof r === 'string');
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(md.labels))) if (typeof v === 'string') labels[k] = v;
  return {
    name: String(md.name),
    labels,
    nodeName: typeof nodeName === 'string' && nodeName ? nodeName : undefined,
    deleting: typeof md.deletionTimestamp === 'string',
    phase,
    status: waiting ?? phase,
  };
}

export interface LeaseSeen {
  name: string;
  holder: string;
  renewTime: string | undefined;
}

export function leaseOf(obj: unknown): LeaseSeen {
  const o = rec(obj);
  const spec = rec(o.spec);
  return {
    name: String(rec(o.metadata).name),
    holder: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    renewTime: typeof spec.renewTime === 'string' ? spec.renewTime : undefined,
  };
}

export interface WatchEvent<T> {
  type: string;
  obj: T;
  prev?: T;
  /** Date.now() when the event arrived. */
  at: number;
}

/**
 * Watches one collection (e.g. /api/v1/namespaces/default/pods), keeping the current set by name; resumes
 * from the last resourceVersion when the stream breaks (an apiserver going away) and re-lists on 410.
 * `onChange` runs after every event, in order.
 */
export class Watch<T extends { name: string }> {
  readonly objects = new Map<string, T>();
  private readonly ac = new AbortController();
  private rv = '';
  constructor(
    private readonly server: string,
    private readonly collection: string,
    private readonly query: string,
    private readonly parse: (o: unknown) => T,
    private readonly onChange: (w: Watch<T>, ev: WatchEvent<T>) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    await this.relist();
    void this.loop();
  }

  stop(): void {
    this.ac.abort();
  }

  private async relist(): Promise<void> {
    const r = await call(this.server, 'GET', `${this.collection}?${this.query}`);
    if (r.status !== 200) throw new Error(`list ${this.collection}: ${r.status}`);
    this.objects.clear();
    for (const raw of items(r)) {
      const obj = this.parse(raw);
      this.objects.set(obj.name, obj);
      this.changed({ type: 'ADDED', obj, at: Date.now() });
    }
    this.rv = String(rec(rec(r.body).metadata).resourceVersion ?? '');
  }

  private async loop(): Promise<void> {
    while (!this.ac.signal.aborted) {
      try {
        const res = await labFetch(`${this.server}${this.collection}?watch=true&allowWatchBookmarks=true&resourceVersion=${this.rv}&${this.query}`, { signal: this.ac.signal });
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
      // The stream ended (its apiserver went away): reconnect through the balancer, as an informer does.
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
    const obj = this.parse(ev.object);
    const prev = this.objects.get(obj.name);
    if (type === 'DELETED') this.objects.delete(obj.name);
    else this.objects.set(obj.name, obj);
    const at = Date.now();
    this.changed(prev ? { type, obj, prev, at } : { type, obj, at });
  }

  protected changed(ev: WatchEvent<T>): void {
    this.onChange(this, ev);
  }
}

/** Pods of a namespace (optionally by label selector). */
export class PodWatch extends Watch<PodSeen> {
  constructor(server: string, ns: string, selector: string, onChange?: (w: PodWatch, ev: WatchEvent<PodSeen>) => void) {
    super(server, `/api/v1/namespaces/${ns}/pods`, selector ? `labelSelector=${encodeURIComponent(selector)}` : '', podOf, onChange as ((w: Watch<PodSeen>, ev: WatchEvent<PodSeen>) => void) | undefined);
  }

  get pods(): Map<string, PodSeen> {
    return this.objects;
  }

  /** Pods that exist and are not being deleted. */
  live(): PodSeen[] {
    return [...this.objects.values()].filter((p) => !p.deleting);
  }
}

/** One Lease in kube-system, with the holder it had at every event (a release shows as holder ""). */
export class LeaseWatch extends Watch<LeaseSeen> {
  /** The holder at every change of holder. */
  readonly history: { at: number; holder: string }[] = [];
  /** Every event (each renewal is one), with the holder it named. */
  readonly events: { at: number; holder: string }[] = [];
  constructor(server: string, readonly lease: string) {
    super(server, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', `fieldSelector=${encodeURIComponent(`metadata.name=${lease}`)}`, leaseOf);
  }

  protected override changed(ev: WatchEvent<LeaseSeen>): void {
    if (ev.obj.name !== this.lease) return;
    this.events.push({ at: ev.at, holder: ev.obj.holder });
    const last = this.history[this.history.length - 1];
    if (!last || last.holder !== ev.obj.holder) this.history.push({ at: ev.at, holder: ev.obj.holder });
  }

  /** The process named by the current holder identity ("controller-manager-1_<uuid>" → "controller-manager-1"). */
  component(): string {
    return (this.history[this.history.length - 1]?.holder ?? '').split('_')[0] ?? '';
  }

  /** The first change of holder at or after `since` to a holder other than `from` (a non-empty one). */
  takeover(from: string, since = 0): { at: number; holder: string } | undefined {
    return this.history.find((h) => h.at >= since && h.holder && h.holder.split('_')[0] !== from);
  }
}

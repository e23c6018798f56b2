// A small in-process stand-in for the apiserver, for client tests: create/get/list (paged)/update
// (optimistic concurrency)/delete/watch (history replay, bookmarks) over any resource path, plus knobs to
// misbehave: drop every watch connection, compact history (410 as an ERROR event or as HTTP 410), go
// silent on watches, or intercept requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '@kemu/api';

interface HistoryEntry {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  collection: string;
  namespace: string;
  obj: KubeObject;
}

interface Watcher {
  collection: string;
  namespace: string | undefined;
  res: http.ServerResponse;
}

/** Sees every request (with its body read) first; true = it answered. */
export type Interceptor = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => boolean;

const PATH = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?$/;

function status(res: http.ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, message, code }));
}

export class FakeApiserver {
  private readonly server: http.Server;
  private readonly objects = new Map<string, KubeObject>(); // collection|namespace|name → object
  private history: HistoryEntry[] = [];
  private watchers = new Set<Watcher>();
  private rv = 100;
  private compactedRV = 0;
  url = '';
  /** How a watch from a compacted RV is refused. */
  expiredAs: 'event' | 'http' = 'event';
  /** Accept watches but send nothing (a dead stream). */
  silentWatches = false;
  /** Return true to take over a request. */
  intercept: Interceptor | undefined;
  readonly requests: string[] = [];

  constructor() {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => this.handle(req, res, body));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  /** Cuts every open watch stream mid-flight (as a dying replica would). */
  dropWatches(): void {
    for (const w of this.watchers) w.res.socket?.destroy();
    this.watchers.clear();
  }

  /** Forgets history up to now: watches from older RVs get 410. */
  compact(): void {
    this.compactedRV = this.rv;
    this.history = [];
  }

  currentRV(): number {
    return this.rv;
  }

  /** Writes directly (as another client would), notifying watchers. */
  put(collection: string, obj: KubeObject, type?: 'ADDED' | 'MODIFIED'): KubeObject {
    const ns = obj.metadata.namespace ?? '';
    const key = `${collection}|${ns}|${obj.metadata.name}`;
    const t = type ?? (this.objects.has(key) ? 'MODIFIED' : 'ADDED');
    const stored: KubeObject = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.uid ??= `uid-${this.rv}`;
    this.objects.set(key, stored);
    this.record(t, collection, ns, stored);
    return stored;
  }

  remove(collection: string, namespace: string, name: string): KubeObject | undefined {
    const key = `${collection}|${namespace}|${name}`;
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.objects.delete(key);
    const gone = structuredClone(old);
    gone.metadata.resourceVersion = String(++this.rv);
    this.record('DELETED', collection, namespace, gone);
    return gone;
  }

  /** Objects of a collection, in one namespace or all (ns undefined). */
  listObjects(collection: string, ns?: string): KubeObject[] {
    return this.inScope(collection, ns);
  }

  getObject(collection: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${collection}|${namespace}|${name}`);
  }

  /** Sends a bookmark at the current RV to every watcher. */
  bookmark(): void {
    for (const w of this.watchers) w.res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Bookmark', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) } } })}\n`);
  }

  private record(type: HistoryEntry['type'], collection: string, namespace: string, obj: KubeObject): void {
    const e: HistoryEntry = { rv: this.rv, type, collection, namespace, obj };
    this.history.push(e);
    for (const w of this.watchers) if (this.matches(w, e)) w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
  }

  private matches(w: Watcher, e: HistoryEntry): boolean {
    return w.collection === e.collection && (w.namespace === undefined || w.namespace === e.namespace);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (this.intercept?.(req, res, body)) return;
    const m = PATH.exec(url.pathname);
    if (!m) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const [, prefix, ns, plural, name] = m;
    const collection = `${prefix}/${plural}`;
    const q = url.searchParams;
    try {
      switch (req.method) {
        case 'GET':
          if (name) return this.get(res, collection, ns ?? '', name);
          if (q.get('watch') === 'true') return this.watch(req, res, collection, ns, q);
          return this.list(res, collection, ns, q);
        case 'POST': {
          const obj = JSON.parse(body) as KubeObject;
          if (ns) obj.metadata.namespace = ns;
          if (this.getObject(collection, ns ?? '', obj.metadata.name ?? '')) {
            return status(res, 409, 'AlreadyExists', `${plural} "${obj.metadata.name}" already exists`);
          }
          return this.json(res, 201, this.put(collection, obj, 'ADDED'));
        }
        case 'PUT': {
          const obj = JSON.parse(body) as KubeObject;
          const cur = this.getObject(collection, ns ?? '', name ?? '');
          if (!cur) return status(res, 404, 'NotFound', `${plural} "${name}" not found`);
          const want = obj.metadata.resourceVersion;
          if (want && want !== cur.metadata.resourceVersion) {
            return status(res, 409, 'Conflict', `Operation cannot be fulfilled on ${plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
          }
          obj.metadata.namespace = ns;
          obj.metadata.uid = cur.metadata.uid;
          return this.json(res, 200, this.put(collection, obj, 'MODIFIED'));
        }
        case 'PATCH': {
          const cur = this.getObject(collection, ns ?? '', name ?? '');
          if (!cur) return status(res, 404, 'NotFound', `${plural} "${name}" not found`);
          const patch = JSON.parse(body) as Record<string, unknown>;
          return this.json(res, 200, this.put(collection, { ...cur, ...patch, metadata: cur.metadata }, 'MODIFIED'));
        }
        case 'DELETE': {
          const gone = this.remove(collection, ns ?? '', name ?? '');
          if (!gone) return status(res, 404, 'NotFound', `${plural} "${name}" not found`);
          return this.json(res, 200, gone);
        }
        default:
          return status(res, 405, 'MethodNotAllowed', 'method not allowed');
      }
    } catch (e) {
      return status(res, 400, 'BadRequest', String(e));
    }
  }

  private json(res: http.ServerResponse, code: number, v: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  }

  private get(res: http.ServerResponse, collection: string, ns: string, name: string): void {
    const o = this.getObject(collection, ns, name);
    if (!o) return status(res, 404, 'NotFound', `${collection.split('/').pop()} "${name}" not found`);
    this.json(res, 200, o);
  }

  private inScope(collection: string, ns: string | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    for (const [key, o] of this.objects) {
      const [c, n] = key.split('|');
      if (c === collection && (ns === undefined || n === ns)) out.push(o);
    }
    return out;
  }

  private list(res: http.ServerResponse, collection: string, ns: string | undefined, q: URLSearchParams): void {
    const all = this.inScope(collection, ns).sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
    const limit = Number(q.get('limit') ?? 0);
    const start = Number(q.get('continue') ?? 0);
    const items = limit > 0 ? all.slice(start, start + limit) : all.slice(start);
    const next = limit > 0 && start + limit < all.length ? String(start + limit) : undefined;
    this.json(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv), ...(next ? { continue: next } : {}) }, items });
  }

  private watch(req: http.IncomingMessage, res: http.ServerResponse, collection: string, ns: string | undefined, q: URLSearchParams): void {
    const from = Number(q.get('resourceVersion') ?? 0);
    if (from > 0 && from < this.compactedRV) {
      const msg = `too old resource version: ${from} (${this.compactedRV})`;
      if (this.expiredAs === 'http') return status(res, 410, 'Expired', msg);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', message: msg, code: 410 } })}\n`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    if (this.silentWatches) return; // never a byte, never closed
    const w: Watcher = { collection, namespace: ns, res };
    for (const e of this.history) if (e.rv > from && this.matches(w, e)) res.write(`${JSON.stringify({ type: e.type, object: e.obj })}\n`);
    this.watchers.add(w);
    req.socket.on('close', () => this.watchers.delete(w));
  }
}

// A small etcd v3 client on @grpc/grpc-js with etcd's own protos (rpc.proto beside this file): unary KV
// and Maintenance calls and Watch streams, to one of several --etcd-servers. Calls go to the active
// endpoint; when it is unreachable the next one becomes active (reads are retried there once, writes are
// not: their outcome is unknown, so the caller gets StoreUnavailableError, the apiserver's 503).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { StoreUnavailableError } from '../backend.ts';

export interface EtcdTls {
  /** --etcd-cafile: PEM bundle of CAs that sign the servers' certificates. */
  caFile?: string;
  /** --etcd-certfile / --etcd-keyfile: the client certificate etcd checks (--client-cert-auth). */
  certFile?: string;
  keyFile?: string;
}

export interface PbKeyValue {
  key: Buffer;
  create_revision: number;
  mod_revision: number;
  version: number;
  value: Buffer;
}
export interface PbHeader {
  revision: number;
  member_id: string;
}
export interface RangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}
export interface RangeResponse {
  header: PbHeader;
  kvs: PbKeyValue[];
  more: boolean;
  count: number;
}
export interface Compare {
  result: 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL';
  target: 'VERSION' | 'CREATE' | 'MOD';
  key: Buffer;
  create_revision?: number;
  mod_revision?: number;
  version?: number;
}
export type RequestOp =
  | { request_range: RangeRequest }
  | { request_put: { key: Buffer; value: Buffer; prev_kv?: boolean } }
  | { request_delete_range: { key: Buffer; prev_kv?: boolean } };
export interface ResponseOp {
  response_range?: RangeResponse;
  response_put?: { header: PbHeader; prev_kv?: PbKeyValue | null };
  response_delete_range?: { header: PbHeader; deleted: number; prev_kvs: PbKeyValue[] };
}
export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}
export interface TxnResponse {
  header: PbHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}
export interface WatchCreateRequest {
  key: Buffer;
  range_end: Buffer;
  start_revision: number;
  progress_notify: boolean;
  prev_kv: boolean;
}
export interface PbEvent {
  type: 'PUT' | 'DELETE';
  kv: PbKeyValue;
  prev_kv?: PbKeyValue | null;
}
export interface WatchResponse {
  header: PbHeader;
  watch_id: number;
  created: boolean;
  canceled: boolean;
  compact_revision: number;
  cancel_reason: string;
  events: PbEvent[];
}
export interface StatusResponse {
  header: PbHeader;
  version: string;
  errors: string[];
}

export interface WatchStream {
  write(req: { create_request: WatchCreateRequest } | { cancel_request: { watch_id: number } }): void;
  on(event: 'data', fn: (res: WatchResponse) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  on(event: 'end', fn: () => void): void;
  cancel(): void;
  end(): void;
}

type Callback<T> = (err: grpc.ServiceError | null, res: T) => void;
interface KvStub extends grpc.Client {
  Range(req: RangeRequest, opts: grpc.CallOptions, cb: Callback<RangeResponse>): void;
  Txn(req: TxnRequest, opts: grpc.CallOptions, cb: Callback<TxnResponse>): void;
  Compact(req: { revision: number; physical: boolean }, opts: grpc.CallOptions, cb: Callback<unknown>): void;
}
interface WatchStub extends grpc.Client {
  Watch(opts?: grpc.CallOptions): WatchStream;
}
interface MaintenanceStub extends grpc.Client {
  Status(req: Record<string, never>, opts: grpc.CallOptions, cb: Callback<StatusResponse>): void;
}
type StubCtor<T> = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => T;
interface Services {
  KV: StubCtor<KvStub>;
  Watch: StubCtor<WatchStub>;
  Maintenance: StubCtor<MaintenanceStub>;
}

let services: Services | undefined;
function loadServices(): Services {
  if (services) return services;
  const def = protoLoader.loadSync(fileURLToPath(new URL('./rpc.proto', import.meta.url)), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    arrays: true,
  });
  const pkg = (grpc.loadPackageDefinition(def) as unknown as { etcdserverpb: Services }).etcdserverpb;
  services = pkg;
  return pkg;
}

/** One --etcd-servers URL parsed: where to dial and whether with TLS. */
export interface EtcdServer {
  url: string;
  address: string;
  secure: boolean;
}

export function parseEtcdServers(servers: string): EtcdServer[] {
  const out: EtcdServer[] = [];
  for (const raw of servers.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    let u: URL;
    try {
      u = new URL(raw.includes('://') ? raw : `http://${raw}`);
    } catch {
      throw new TypeError(`invalid --etcd-servers entry "${raw}": expected a URL such as https://127.0.0.1:2379`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new TypeError(`invalid --etcd-servers entry "${raw}": scheme must be http or https`);
    }
    out.push({ url: raw, address: `${u.hostname}:${u.port || '2379'}`, secure: u.protocol === 'https:' });
  }
  if (out.length === 0) throw new TypeError('--etcd-servers must name at least one server');
  return out;
}

interface Member {
  server: EtcdServer;
  kv: KvStub;
  watch: WatchStub;
  maintenance: MaintenanceStub;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // Lists of many objects exceed gRPC's 4 MiB default; etcd itself caps requests at 1.5 MiB per value.
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2000,
};

export class EtcdClient {
  readonly members: readonly Member[];
  private active = 0;

  constructor(servers: EtcdServer[], tls: EtcdTls = {}) {
    const s = loadServices();
    const read = (f: string | undefined): Buffer | null => (f ? readFileSync(f) : null);
    const ca = read(tls.caFile);
    const key = read(tls.keyFile);
    const cert = read(tls.certFile);
    if (!!key !== !!cert) throw new TypeError('--etcd-certfile and --etcd-keyfile must be given together');
    this.members = servers.map((server) => {
      const creds = server.secure ? grpc.credentials.createSsl(ca, key, cert) : grpc.credentials.createInsecure();
      return {
        server,
        kv: new s.KV(server.address, creds, CHANNEL_OPTIONS),
        watch: new s.Watch(server.address, creds, CHANNEL_OPTIONS),
        maintenance: new s.Maintenance(server.address, creds, CHANNEL_OPTIONS),
      };
    });
  }

  range(req: RangeRequest, timeoutMs?: number): Promise<RangeResponse> {
    return this.call((m, o, cb) => m.kv.Range(req, o, cb), timeoutMs, true);
  }

  txn(req: TxnRequest, timeoutMs?: number): Promise<TxnResponse> {
    return this.call((m, o, cb) => m.kv.Txn(req, o, cb), timeoutMs, false);
  }

  compact(revision: number): Promise<unknown> {
    return this.call((m, o, cb) => m.kv.Compact({ revision, physical: false }, o, cb), undefined, false);
  }

  /** A Range on one member only (health of that member); serializable=false, so it needs quorum. */
  rangeOn(index: number, req: RangeRequest, timeoutMs: number): Promise<RangeResponse> {
    const m = this.members[index] as Member;
    return new Promise((resolve, reject) => m.kv.Range(req, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res))));
  }

  /** A new Watch stream on the active member, and that member's index (for failover). */
  watchStream(): { stream: WatchStream; member: number } {
    const member = this.active;
    return { stream: (this.members[member] as Member).watch.Watch(), member };
  }

  /**
   * Member `from` is gone: the next stream and call use the one after it. Only if `from` is still the active
   * one, so several watches and calls noticing the same loss move on by one member, not one each.
   */
  failover(from: number): void {
    if (this.members.length > 1 && this.active === from) this.active = (from + 1) % this.members.length;
  }

  close(): void {
    for (const m of this.members) {
      m.kv.close();
      m.watch.close();
      m.maintenance.close();
    }
  }

  private async call<T>(fn: (m: Member, o: grpc.CallOptions, cb: Callback<T>) => void, timeoutMs: number | undefined, retry: boolean): Promise<T> {
    const attempts = retry ? Math.min(2, this.members.length) : 1;
    // Members are walked from the active one with a local index, so failovers by concurrent calls and watches
    // never make this call skip a member or try one twice.
    const first = this.active;
    for (let tried = 0, sent = 0; ; tried++) {
      const index = (first + tried) % this.members.length;
      const m = this.members[index] as Member;
      const opts: grpc.CallOptions = timeoutMs ? { deadline: Date.now() + timeoutMs } : {};
      try {
        return await new Promise<T>((resolve, reject) => fn(m, opts, (err, res) => (err ? reject(err) : resolve(res))));
      } catch (err) {
        const unreachable = isUnreachable(err);
        if (unreachable) this.failover(index);
        const more = tried + 1 < this.members.length;
        // A call that never left (no connection to that member) is safe to send to the next one, a write too,
        // as etcd's clientv3 retries "there is no connection available"; each member is tried once.
        if (notSent(err) && more) continue;
        if (unreachable && ++sent < attempts && more) continue;
        throw unreachable ? new StoreUnavailableError(`etcd ${m.server.url}: ${goMessage(err)}`) : asGoError(err);
      }
    }
  }
}

/** The server could not be reached or did not answer in time. */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED;
}

/** grpc-js failed the call before sending it: the member's channel has no connection. */
export function notSent(err: unknown): boolean {
  const e = err as { code?: unknown; details?: unknown };
  return e.code === grpc.status.UNAVAILABLE && typeof e.details === 'string' && e.details.startsWith('No connection established');
}

/** A gRPC status code's Go name (UNKNOWN → Unknown, DEADLINE_EXCEEDED → DeadlineExceeded). */
function goCodeName(code: number): string {
  const name = (grpc.status as unknown as Record<number, string>)[code] ?? String(code);
  return name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase());
}

/**
 * An error etcd answered, worded as kube-apiserver passes it on through etcd's Go client: etcd's own errors
 * ("etcdserver: request timed out", "mvcc: …") as their text, any other status as grpc-go prints it
 * ("rpc error: code = Unknown desc = context deadline exceeded") — not grpc-js's "2 UNKNOWN: …".
 */
export function goMessage(err: unknown): string {
  const e = err as { code?: unknown; details?: unknown };
  if (typeof e.code !== 'number' || typeof e.details !== 'string') return err instanceof Error ? err.message : String(err);
  if (/^(etcdserver|mvcc|auth): /.test(e.details)) return e.details;
  return `rpc error: code = ${goCodeName(e.code)} desc = ${e.details}`;
}

/** The same error with goMessage as its message (code and details kept for etcdMessage and isUnreachable). */
function asGoError(err: unknown): unknown {
  if (!(err instanceof Error) || typeof (err as { code?: unknown }).code !== 'number') return err;
  err.message = goMessage(err);
  return err;
}

/** etcd's own error text, without the "N CODE: " gRPC adds in front. */
export function etcdMessage(err: unknown): string {
  const details = (err as { details?: unknown }).details;
  return typeof details === 'string' ? details : err instanceof Error ? err.message : String(err);
}

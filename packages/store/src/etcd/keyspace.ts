// Where the store's keys live in etcd. The apiserver's keys are Kubernetes' /registry/<resource>/...;
// under --etcd-prefix P they are stored at P/<resource>/... as kube-apiserver does (P defaults to
// /registry, so the etcd keys are exactly the store's). Keys and prefixes travel as UTF-8 bytes.

/** The root every store key starts with (storage.ts in the apiserver). */
export const STORE_ROOT = '/registry';

export interface KeyRange {
  key: Buffer;
  /** Exclusive end; empty Buffer never occurs (a prefix always has an end here). */
  rangeEnd: Buffer;
}

export class KeySpace {
  /** The etcd prefix without trailing slashes ("/registry", "/kemu", or "" for the root). */
  readonly prefix: string;

  constructor(etcdPrefix: string) {
    this.prefix = etcdPrefix.replace(/\/+$/, '');
  }

  /** The etcd key of a store key; store keys outside /registry/ are refused. */
  toEtcd(key: string): Buffer {
    if (!key.startsWith(`${STORE_ROOT}/`)) throw new TypeError(`invalid store key ${JSON.stringify(key)}: must start with ${STORE_ROOT}/`);
    return Buffer.from(this.prefix + key.slice(STORE_ROOT.length), 'utf8');
  }

  fromEtcd(key: Buffer): string {
    return STORE_ROOT + key.toString('utf8').slice(this.prefix.length);
  }

  /**
   * The etcd range holding the store keys that start with `prefix`, or undefined when none can (every
   * store key starts with /registry/, so "/" or "/reg" select all of them and "/other" none).
   */
  range(prefix: string): KeyRange | undefined {
    let start: string;
    if (prefix.startsWith(`${STORE_ROOT}/`)) start = this.prefix + prefix.slice(STORE_ROOT.length);
    else if (`${STORE_ROOT}/`.startsWith(prefix)) start = `${this.prefix}/`;
    else return undefined;
    const key = Buffer.from(start, 'utf8');
    return { key, rangeEnd: bytePrefixEnd(key) };
  }
}

/** etcd's prefix end: the last byte below 0xff incremented, later bytes dropped. */
export function bytePrefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff (never for keys starting with "/"): "\0" as range_end means "to the end of the keyspace".
  return Buffer.from([0]);
}

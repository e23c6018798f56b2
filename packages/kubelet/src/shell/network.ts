// What the emulated shell sees of the cluster network: one HTTP exchange to a host and port, answered by the
// emulated data plane (proxy/cluster-network.ts) or failing as a socket would. The shell's wget and curl
// (http-client.ts) turn the outcome into their own output and error texts.

export interface HttpExchange {
  method: string;
  /** Host name or IP address as written in the URL. */
  host: string;
  port: number;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type HttpOutcome =
  | { kind: 'response'; address: string; status: number; statusText: string; httpVersion: string; headers: [string, string][]; body: string }
  /** `unknown-host`: no such name; `refused`: nothing accepts the connection at `address`; `timeout`: nothing answers. */
  | { kind: 'error'; error: 'unknown-host' | 'refused' | 'timeout'; address?: string };

export interface ShellNetwork {
  request(req: HttpExchange, signal?: AbortSignal): Promise<HttpOutcome>;
}

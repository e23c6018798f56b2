// The few Docker Engine API calls the compose lab's cloud makes (HTTP on the engine's Unix socket, API v1.41:
// Docker 20.10 and later): inspect a container, list by label, create, start, stop, remove.
import http from 'node:http';

export class DockerEngineError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** What the cloud reads of a container (GET /containers/{name}/json). */
export interface ContainerInfo {
  name: string;
  image: string;
  labels: Record<string, string>;
  networks: string[];
  mounts: { source: string; destination: string }[];
}

/** The body of POST /containers/create that the cloud fills in. */
export interface ContainerCreate {
  Image: string;
  Hostname: string;
  Cmd: string[];
  Labels: Record<string, string>;
  StopSignal: string;
  HostConfig: { Binds: string[]; Init: boolean; RestartPolicy: { Name: string }; NetworkMode: string };
  NetworkingConfig: { EndpointsConfig: Record<string, { Aliases: string[] }> };
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function stringRecord(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(record(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

export class DockerEngine {
  constructor(
    private readonly socketPath = '/var/run/docker.sock',
    private readonly timeoutMs = 60_000,
  ) {}

  private request(method: string, path: string, body?: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          socketPath: this.socketPath,
          method,
          path: `/v1.41${path}`,
          timeout: this.timeoutMs,
          headers: data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {},
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            let parsed: unknown = undefined;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = text;
            }
            const status = res.statusCode ?? 0;
            if (status >= 400) {
              const message = record(parsed).message;
              reject(new DockerEngineError(`docker ${method} ${path}: ${typeof message === 'string' ? message : `HTTP ${status}`}`, status));
            } else resolve(parsed);
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`docker ${method} ${path}: no answer within ${this.timeoutMs}ms`)));
      req.on('error', (e) => reject(new Error(`cannot reach the Docker engine at ${this.socketPath}: ${e.message}`)));
      req.end(data);
    });
  }

  async inspect(name: string): Promise<ContainerInfo> {
    const c = record(await this.request('GET', `/containers/${encodeURIComponent(name)}/json`));
    const config = record(c.Config);
    const mounts = Array.isArray(c.Mounts) ? c.Mounts.map(record) : [];
    return {
      name: String(c.Name ?? name).replace(/^\//, ''),
      image: String(config.Image ?? ''),
      labels: stringRecord(config.Labels),
      networks: Object.keys(record(record(c.NetworkSettings).Networks)),
      mounts: mounts.map((m) => ({ source: String(m.Source ?? ''), destination: String(m.Destination ?? '') })),
    };
  }

  /** Names of the containers (running or not) carrying every label given as key=value. */
  async listByLabels(labels: string[]): Promise<string[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: labels }));
    const list = await this.request('GET', `/containers/json?all=1&filters=${filters}`);
    return (Array.isArray(list) ? list : []).flatMap((c) => {
      const names = record(c).Names;
      return Array.isArray(names) && typeof names[0] === 'string' ? [names[0].replace(/^\//, '')] : [];
    });
  }

  async create(name: string, spec: ContainerCreate): Promise<void> {
    await this.request('POST', `/containers/create?name=${encodeURIComponent(name)}`, spec);
  }

  async start(name: string): Promise<void> {
    await this.request('POST', `/containers/${encodeURIComponent(name)}/start`);
  }

  /** Stops (SIGTERM, then SIGKILL after graceSeconds) and removes the container and its anonymous volumes; gone is fine. */
  async remove(name: string, graceSeconds: number): Promise<void> {
    try {
      await this.request('POST', `/containers/${encodeURIComponent(name)}/stop?t=${graceSeconds}`);
    } catch (e) {
      if (!(e instanceof DockerEngineError) || (e.status !== 304 && e.status !== 404)) throw e;
    }
    try {
      await this.request('DELETE', `/containers/${encodeURIComponent(name)}?force=1&v=1`);
    } catch (e) {
      if (!(e instanceof DockerEngineError) || e.status !== 404) throw e;
    }
  }
}

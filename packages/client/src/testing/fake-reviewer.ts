// A stand-in for the apiserver's review APIs, for tests of delegated authentication and authorization: answers
// TokenReview from a token table, SubjectAccessReview from a function, and GET of ConfigMaps it holds; it counts
// the reviews it answered and writes a kubeconfig that points at it.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface SarSpec {
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  nonResourceAttributes?: { path?: string; verb?: string };
}

export type SarAnswer = { allowed: boolean; denied?: boolean; reason?: string } | 'error';

export class FakeReviewer {
  private readonly server: http.Server;
  url = '';
  tokens = new Map<string, ReviewedUser>();
  /** TokenReview error text for a token it does not know (empty: just unauthenticated). */
  tokenError = '';
  sar: (spec: SarSpec) => SarAnswer = () => ({ allowed: false });
  configMaps = new Map<string, Record<string, string>>();
  /** Refuse every ConfigMap read with 403. */
  forbidConfigMaps = false;
  readonly tokenReviews: string[] = [];
  readonly accessReviews: SarSpec[] = [];

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
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  /** A kubeconfig file in `dir` whose server is this fake. */
  writeKubeconfig(dir: string, name = 'reviewer.kubeconfig'): string {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${this.url}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`,
    );
    return file;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const send = (code: number, obj: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
    };
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/apis/authentication.k8s.io/v1/tokenreviews') {
      const review = JSON.parse(body) as { spec: { token: string } };
      this.tokenReviews.push(review.spec.token);
      const user = this.tokens.get(review.spec.token);
      const status = user ? { authenticated: true, user } : { authenticated: false, ...(this.tokenError ? { error: this.tokenError } : {}) };
      return send(201, { ...review, status });
    }
    if (req.method === 'POST' && url.pathname === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
      const review = JSON.parse(body) as { spec: SarSpec };
      this.accessReviews.push(review.spec);
      const answer = this.sar(review.spec);
      if (answer === 'error') return send(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'etcd is sulking', reason: 'InternalError', code: 500 });
      return send(201, { ...review, status: answer });
    }
    const cm = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && cm) {
      if (this.forbidConfigMaps) {
        return send(403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: `configmaps "${cm[2]}" is forbidden: User "x" cannot get resource "configmaps" in API group "" in the namespace "${cm[1]}"` });
      }
      const data = this.configMaps.get(`${cm[1]}/${cm[2]}`);
      if (!data) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `configmaps "${cm[2]}" not found` });
      return send(200, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: cm[2], namespace: cm[1] }, data });
    }
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  }
}

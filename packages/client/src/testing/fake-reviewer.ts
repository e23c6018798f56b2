// A stand-in for the apiserver's review APIs, for tests of delegated authentication and authorization: a
// FakeApiserver (which serves the ConfigMaps put into it) that also answers TokenReview from a token table and
// SubjectAccessReview from a function, counting the reviews, and writes a kubeconfig that points at it.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { FakeApiserver } from './fake-apiserver.ts';

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
  resourceAttributes?: Record<string, string>;
}

export type SarAnswer = { allowed: boolean; denied?: boolean; reason?: string } | 'error';

const CONFIGMAPS = '/api/v1/configmaps';

export class FakeReviewer {
  readonly api = new FakeApiserver();
  tokens = new Map<string, ReviewedUser>();
  /** TokenReview error text for a token it does not know (empty: just unauthenticated). */
  tokenError = '';
  sar: (spec: SarSpec) => SarAnswer = () => ({ allowed: false });
  /** Refuse every ConfigMap read with 403. */
  forbidConfigMaps = false;
  readonly tokenReviews: string[] = [];
  readonly accessReviews: SarSpec[] = [];

  get url(): string {
    return this.api.url;
  }

  async start(): Promise<this> {
    this.api.intercept = (req, res, body) => this.review(req, res, body);
    await this.api.start();
    return this;
  }

  stop(): Promise<void> {
    return this.api.stop();
  }

  /** Puts (or replaces) a ConfigMap's data; undefined removes it. */
  setConfigMap(namespace: string, name: string, data: Record<string, string> | undefined): void {
    if (data) this.api.put(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
    else this.api.remove(CONFIGMAPS, namespace, name);
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

  private review(req: http.IncomingMessage, res: http.ServerResponse, body: string): boolean {
    const send = (code: number, obj: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
      return true;
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
    if (req.method === 'GET' && cm && this.forbidConfigMaps) {
      return send(403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: `configmaps "${cm[2]}" is forbidden: User "x" cannot get resource "configmaps" in API group "" in the namespace "${cm[1]}"`,
      });
    }
    return false;
  }
}

// Dot segments in the path ("." and "..", raw or percent-encoded, alone or after a name) never reach a
// parent resource: a name that is "." or ".." (or holds "/" or "%") is Kubernetes' 400 "Name parameter
// invalid", a segment after a name is an unknown subresource (404), and nothing is read or written. The
// requests go over a socket with node:http, which sends the path as given (curl and undici would resolve
// "..", as `curl --path-as-is` does not). kubectl proxy is checked for what its user sees.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { RESOURCES, type ResourceInfo } from '@kemu/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApiserver, type InProcessApiserver } from '../support/in-process-apiserver.ts';

const NS = 'tr1';
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

interface Reply {
  status: number;
  body: string;
  location?: string;
}

function send(base: string, method: string, rawPath: string, body?: unknown): Promise<Reply> {
  const u = new URL(base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const type = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path: rawPath, agent, headers: payload === undefined ? {} : { 'content-type': type, 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ...(res.headers.location ? { location: res.headers.location } : {}) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function root(r: ResourceInfo): string {
  return r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
}
function collection(r: ResourceInfo, ns = NS): string {
  return r.namespaced ? `${root(r)}/namespaces/${ns}/${r.plural}` : `${root(r)}/${r.plural}`;
}

/** Name segments that are "." or "..": Kubernetes' key function refuses them. */
const DOT_NAMES: Array<[string, string]> = [
  ['..', '..'],
  ['%2e%2e', '..'],
  ['%2E%2E', '..'],
  ['.%2e', '..'],
  ['.', '.'],
  ['%2e', '.'],
];
/** A dot segment after a name, or a name then a segment after a dot: unknown subresources, so 404. */
const AFTER_NAME = ['x/..', 'x/%2e%2e', 'x/.', 'x/%2E', './x', '%2e%2e/x', '../..', '../../kube-system/configmaps'];

let api: InProcessApiserver;
/** The store's revision before the probes: any write would move it. */
let revisionBefore: string;

async function revision(): Promise<string> {
  const r = await send(api.url, 'GET', '/api/v1/namespaces');
  return (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

beforeAll(async () => {
  api = await startInProcessApiserver('kemu-dots-');
  expect((await send(api.url, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  for (const name of ['keep', 'x']) {
    expect((await send(api.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name } })).status).toBe(201);
  }
  expect((await send(api.url, 'POST', '/api/v1/namespaces/kube-system/configmaps', { metadata: { name: 'secret-ish' } })).status).toBe(201);
  revisionBefore = await revision();
});
afterAll(async () => {
  agent.destroy();
  await api?.close();
});

function status(reply: Reply): { code?: number; reason?: string; message?: string; kind?: string } {
  return JSON.parse(reply.body) as { code?: number; reason?: string; message?: string; kind?: string };
}

describe('dot segments in object names', () => {
  for (const r of RESOURCES) {
    it(`${r.group || 'core'}/${r.plural}: every verb refuses "." and ".." names and reaches no other resource`, async () => {
      const named = r.verbs.some((v) => v === 'get' || v === 'update' || v === 'patch' || v === 'delete');
      const problems: string[] = [];
      for (const [segment, decoded] of DOT_NAMES) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'POST']) {
          const body = method === 'PUT' || method === 'POST' ? { metadata: { name: 'x' } } : method === 'PATCH' ? { metadata: { labels: { a: 'b' } } } : undefined;
          const reply = await send(api.url, method, `${collection(r)}/${segment}`, body);
          const st = status(reply);
          const want = `Name parameter invalid: "${decoded}": may not be '${decoded}'`;
          if (named && (reply.status !== 400 || st.message !== want)) problems.push(`${method} ${segment}: ${reply.status} ${reply.body.slice(0, 160)}`);
          if (!named && (reply.status < 400 || reply.status >= 500 || st.kind !== 'Status')) problems.push(`${method} ${segment}: ${reply.status}`);
        }
      }
      for (const segment of AFTER_NAME) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          const reply = await send(api.url, method, `${collection(r)}/${segment}`, method === 'GET' || method === 'DELETE' ? undefined : {});
          const st = status(reply);
          // "./status" names the status of a pod called "." (400); every other form is an unknown subresource.
          if (reply.status !== 404 && reply.status !== 400) problems.push(`${method} ${segment}: ${reply.status} ${reply.body.slice(0, 160)}`);
          if (st.kind !== 'Status' || st.code !== reply.status) problems.push(`${method} ${segment}: not a Status: ${reply.body.slice(0, 160)}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

describe('dot segments as the namespace', () => {
  const namespaced = RESOURCES.filter((r) => r.namespaced);
  it('every namespaced collection and object refuses a "." or ".." namespace', async () => {
    const problems: string[] = [];
    for (const r of namespaced) {
      for (const [segment, decoded] of DOT_NAMES) {
        for (const [method, suffix] of [['GET', ''], ['POST', ''], ['DELETE', ''], ['GET', '/x'], ['PUT', '/x'], ['PATCH', '/x'], ['DELETE', '/x']] as const) {
          const body = method === 'GET' || method === 'DELETE' ? undefined : { metadata: { name: 'x' } };
          const reply = await send(api.url, method, `${collection(r, segment)}${suffix}`, body);
          const st = status(reply);
          const want = `Namespace parameter invalid: "${decoded}": may not be '${decoded}'`;
          if (reply.status !== 400 || st.message !== want) problems.push(`${r.plural} ${method} ${segment}${suffix}: ${reply.status} ${reply.body.slice(0, 120)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('the issue’s examples: no namespace deleted, no ConfigMap deleted, kube-system not listed', async () => {
    const del = await send(api.url, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/%2e%2e`);
    expect([del.status, status(del).message]).toEqual([400, `Name parameter invalid: "..": may not be '..'`]);
    const delAll = await send(api.url, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/.`);
    expect([delAll.status, status(delAll).reason]).toEqual([400, 'BadRequest']);
    const list = await send(api.url, 'GET', `/api/v1/namespaces/${NS}/configmaps/../../kube-system/configmaps`);
    expect(list.status).toBe(404);
    expect(list.body).not.toContain('secret-ish');
  });

  it('nothing was written: the namespace and its ConfigMaps are intact and the revision has not moved', async () => {
    const ns = await send(api.url, 'GET', `/api/v1/namespaces/${NS}`);
    expect(ns.status).toBe(200);
    expect((JSON.parse(ns.body) as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp).toBeUndefined();
    const cms = JSON.parse((await send(api.url, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).body) as { items: Array<{ metadata: { name: string } }> };
    expect(cms.items.map((c) => c.metadata.name).sort()).toEqual(['keep', 'x']);
    expect(await revision()).toBe(revisionBefore);
  });
});

const HAS_KUBECTL = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!HAS_KUBECTL)('through kubectl proxy', () => {
  let proxy: ChildProcess | undefined;
  let proxyUrl = '';
  beforeAll(async () => {
    const home = path.join(api.dir, 'proxy-home');
    mkdirSync(home);
    const p = spawn('kubectl', ['proxy', '--port=0', `--kubeconfig=${api.kubeconfig}`], { env: { ...process.env, HOME: home } });
    proxy = p;
    proxyUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      p.once('error', reject);
      p.once('exit', (code) => reject(new Error(`kubectl proxy exited ${code}: ${out}`)));
      p.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /Starting to serve on ([\d.]+:\d+)/.exec(out);
        if (m) resolve(`http://${m[1]}`);
      });
    });
  });
  afterAll(() => {
    proxy?.kill('SIGKILL');
  });

  it('a raw ".." or "." is redirected to the cleaned path by kubectl proxy itself (301), never executed', async () => {
    // kubectl proxy's Go ServeMux cleans the path and answers 301; a client that does not follow the
    // redirect (curl without -L, kubectl) sees the 301, and nothing happens on the apiserver.
    for (const method of ['GET', 'DELETE']) {
      const up = await send(proxyUrl, method, `/api/v1/namespaces/${NS}/configmaps/..`);
      expect([up.status, up.location]).toEqual([301, `/api/v1/namespaces/${NS}`]);
      const here = await send(proxyUrl, method, `/api/v1/namespaces/${NS}/configmaps/.`);
      expect([here.status, here.location]).toEqual([301, `/api/v1/namespaces/${NS}/configmaps`]);
    }
  });

  it('percent-encoded dot segments pass through and get the apiserver’s 400', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      const body = method === 'PUT' || method === 'PATCH' ? { metadata: { name: 'x' } } : undefined;
      const r = await send(proxyUrl, method, `/api/v1/namespaces/${NS}/configmaps/%2e%2e`, body);
      expect([r.status, status(r).message]).toEqual([400, `Name parameter invalid: "..": may not be '..'`]);
      const ns = await send(proxyUrl, method, `/api/v1/namespaces/%2e%2e/configmaps/x`, body);
      expect([ns.status, status(ns).message]).toEqual([400, `Namespace parameter invalid: "..": may not be '..'`]);
    }
    const sub = await send(proxyUrl, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/x/%2e%2e`);
    expect(sub.status).toBe(404);
  });

  it('the namespace and its ConfigMaps are still there and nothing was written', async () => {
    expect((await send(api.url, 'GET', `/api/v1/namespaces/${NS}/configmaps/keep`)).status).toBe(200);
    expect(await revision()).toBe(revisionBefore);
  });
});

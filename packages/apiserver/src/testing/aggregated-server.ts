// Test helper: a stub aggregated API server on 127.0.0.1 over HTTPS (a throw-away CA, for an APIService's
// caBundle, whose certificate names the Service <service>.<namespace>.svc) serving wardle.example.com/v1alpha1
// flunders (namespaced, short name fl) from memory: discovery, list (and a Table when asked), get, create and
// watch (the current objects as ADDED, then the stream stays open), and its OpenAPI: /openapi/v2 (the Flunder
// definitions, one unreferenced and a path outside the group) and /openapi/v3 with its group-version document
// (404 once `openapiV3` is false). Over WebSocket it serves the watch (one ADDED text message per flunder) and
// flunders/<name>/echo (each message sent back); any other upgrade gets a 400 Status. It asks for a client
// certificate signed by `clientCA` when given; every request is kept (method, URL, headers, the client
// certificate's CN).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { TLSSocket } from 'node:tls';
import { startHttpsTestServer, type HttpsTestServer } from './https-server.ts';

export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';

export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** CN of the client certificate presented, '' without one. */
  clientCN: string;
}

export interface AggregatedServer extends HttpsTestServer {
  requests: SeenRequest[];
  flunders: Map<string, Record<string, unknown>>;
  /** The description of Flunder in the OpenAPI documents (change it to see them downloaded again). */
  flunderDescription: string;
  /** Whether /openapi/v3 is served (else 404, as by servers that only have v2). */
  openapiV3: boolean;
}

const GVK = [{ group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' }];

function flunderSchemas(description: string, ref: (name: string) => string): Record<string, unknown> {
  return {
    'com.example.wardle.v1alpha1.Flunder': {
      description,
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
        spec: { $ref: ref('com.example.wardle.v1alpha1.FlunderSpec') },
      },
      'x-kubernetes-group-version-kind': GVK,
    },
    'com.example.wardle.v1alpha1.FlunderSpec': { type: 'object', properties: { reference: { description: 'A name of another flunder or fischer.', type: 'string' } } },
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': { description: 'the stub server\'s ObjectMeta', type: 'object' },
    'com.example.wardle.v1alpha1.Unreferenced': { type: 'object' },
  };
}

const FLUNDER_PATH = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/{namespace}/flunders/{name}`;

function openapiV2(description: string): Record<string, unknown> {
  const ok = { '200': { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' } } };
  return {
    swagger: '2.0',
    info: { title: 'Wardle', version: '0.1' },
    paths: {
      [FLUNDER_PATH]: { get: { operationId: 'readFlunder', 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': GVK[0], responses: ok } },
      '/version/': { get: { operationId: 'getCodeVersion', responses: { '200': { description: 'OK' } } } },
    },
    definitions: flunderSchemas(description, (n) => `#/definitions/${n}`),
  };
}

function openapiV3(description: string): Record<string, unknown> {
  // kubectl explain finds a kind through the operations of its paths (x-kubernetes-group-version-kind).
  const ok = { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } } } };
  const paths = { [FLUNDER_PATH]: { get: { operationId: 'readFlunder', 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': GVK[0], responses: ok } } };
  return { openapi: '3.0.0', info: { title: 'Wardle', version: '0.1' }, paths, components: { schemas: flunderSchemas(description, (n) => `#/components/schemas/${n}`) } };
}

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`,
  resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['fl'] }],
};

export async function startAggregatedServer(opts: { service: { name: string; namespace: string }; clientCA?: string }): Promise<AggregatedServer> {
  const requests: SeenRequest[] = [];
  const flunders = new Map<string, Record<string, unknown>>();
  const json = (res: ServerResponse, code: number, body: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  // Mutable by tests: the handler reads them on every request.
  const docs = { flunderDescription: 'Flunder is an example type with a spec.', openapiV3: true };
  const record = (req: IncomingMessage) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    requests.push({ method: req.method ?? '', url: req.url ?? '/', headers: { ...req.headers }, clientCN: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : '' });
  };
  const wss = new WebSocketServer({ noServer: true });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    record(req);
    const url = new URL(req.url ?? '/', 'https://x');
    const watch = /\/flunders$/.test(url.pathname) && url.searchParams.get('watch') === 'true';
    if (/\/flunders\/[^/]+\/echo$/.test(url.pathname)) {
      return wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (m, isBinary) => ws.send(m as Buffer, { binary: isBinary })));
    }
    if (watch) {
      return wss.handleUpgrade(req, socket, head, (ws) => {
        for (const f of flunders.values()) ws.send(JSON.stringify({ type: 'ADDED', object: f }));
      });
    }
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'only watches can be upgraded', reason: 'BadRequest', code: 400 });
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const server = await startHttpsTestServer((req, res, body) => {
    record(req);
    const url = new URL(req.url ?? '/', 'https://x');
    const base = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`;
    if (url.pathname === base) return json(res, 200, RESOURCE_LIST);
    if (url.pathname === '/openapi/v2') return json(res, 200, openapiV2(docs.flunderDescription));
    const notFound = () => json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
    if (url.pathname.startsWith('/openapi/v3') && !docs.openapiV3) return notFound();
    if (url.pathname === '/openapi/v3') return json(res, 200, { paths: { [`apis/${WARDLE_GROUP}/${WARDLE_VERSION}`]: { serverRelativeURL: `/openapi/v3/apis/${WARDLE_GROUP}/${WARDLE_VERSION}?hash=${docs.flunderDescription.length}` } } });
    if (url.pathname === `/openapi/v3${base}`) return json(res, 200, openapiV3(docs.flunderDescription));
    const m = /^\/apis\/[^/]+\/[^/]+\/(?:namespaces\/([^/]+)\/)?flunders(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m || !url.pathname.startsWith(base)) return notFound();
    const ns = m[1];
    const inNs = [...flunders.values()].filter((f) => !ns || (f.metadata as { namespace?: string }).namespace === ns);
    if (req.method === 'POST') {
      const obj = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      const meta: Record<string, unknown> = { ...(obj.metadata as Record<string, unknown>), namespace: ns, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), resourceVersion: '1' };
      const stored = { ...obj, apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, kind: 'Flunder', metadata: meta };
      flunders.set(`${ns}/${String(meta.name)}`, stored);
      return json(res, 201, stored);
    }
    if (m[2]) {
      const f = flunders.get(`${ns}/${m[2]}`);
      return f ? json(res, 200, f) : json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `flunders.${WARDLE_GROUP} "${m[2]}" not found` });
    }
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      for (const f of inNs) res.write(`${JSON.stringify({ type: 'ADDED', object: f })}\n`);
      return; // open until the client goes
    }
    if ((req.headers.accept ?? '').includes('as=Table')) {
      return json(res, 200, {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: '1' },
        columnDefinitions: [
          { name: 'Name', type: 'string', format: 'name', description: '', priority: 0 },
          { name: 'Age', type: 'string', format: '', description: '', priority: 0 },
        ],
        rows: inNs.map((f) => ({ cells: [(f.metadata as { name: string }).name, '1m'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: f.metadata } })),
      });
    }
    return json(res, 200, { kind: 'FlunderList', apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, metadata: { resourceVersion: '1' }, items: inNs });
  }, { ...opts, onUpgrade });
  const close = async () => {
    for (const c of wss.clients) c.terminate();
    await server.close();
  };
  // Accessors, so a test's assignment reaches the handler.
  return Object.defineProperties({ ...server, close, requests, flunders } as AggregatedServer, {
    flunderDescription: { get: () => docs.flunderDescription, set: (v: string) => void (docs.flunderDescription = v), enumerable: true },
    openapiV3: { get: () => docs.openapiV3, set: (v: boolean) => void (docs.openapiV3 = v), enumerable: true },
  });
}

// GET pods/<name>/log, as kube-apiserver's LogREST: the query becomes PodLogOptions (conversion errors are 400
// with Go's words, ValidatePodLogOptions failures 422), LogLocation picks the container and the node's kubelet,
// and the kubelet's /containerLogs/<ns>/<pod>/<container> answer is streamed back as text/plain
// (LocationStreamer). A pod on no node has no log yet: 204, as Kubernetes' null stream. A kubelet error status
// becomes a Status as GenericHttpResponseChecker makes it; a kubelet that cannot be reached is a 500 whose
// message is Go's request error.
import { errors, formatTime, R, StatusError, type KubeObject, type Status, type StatusCause } from '@kemu/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from '../context.ts';
import { KubeletRequestError } from '../kubelet-client/client.ts';
import { NoPreferredAddressError } from '../kubelet-client/connection-info.ts';
import { rfc3339ParseError } from '../protobuf/go-time.ts';
import { boolParam, intParam, type ApiReply, type ApiRequest } from './request.ts';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  /** Epoch ms. */
  sinceTime?: number;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in epoch ms. */
const GO_ZERO_TIME_MS = -62135596800000;

/** The query as Kubernetes' parameter conversion reads it; a value that does not convert is a 400. */
export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  const o: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: boolParam(q, 'follow') ?? false,
    previous: boolParam(q, 'previous') ?? false,
    timestamps: boolParam(q, 'timestamps') ?? false,
    insecureSkipTLSVerifyBackend: boolParam(q, 'insecureSkipTLSVerifyBackend') ?? false,
  };
  for (const k of ['sinceSeconds', 'tailLines', 'limitBytes'] as const) {
    const v = intParam(q, k);
    if (v !== undefined) o[k] = v;
  }
  const since = q.get('sinceTime');
  if (since !== null) {
    // metav1.Time's UnmarshalQueryParameter: "" and "null" are the zero time.
    if (since === '' || since === 'null') o.sinceTime = GO_ZERO_TIME_MS;
    else {
      const err = rfc3339ParseError(since);
      if (err) throw errors.badRequest(err);
      o.sinceTime = Date.parse(since);
    }
  }
  return o;
}

/** ValidatePodLogOptions: PodLogOptions "<pod>" is invalid (422). */
export function validatePodLogOptions(name: string, o: PodLogOptions): void {
  const causes: (StatusCause & { field: string })[] = [];
  const invalid = (field: string, value: number, why: string) => causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${why}` });
  if (o.tailLines !== undefined && o.tailLines < 0) invalid('tailLines', o.tailLines, 'must be greater than or equal to 0');
  if (o.limitBytes !== undefined && o.limitBytes < 1) invalid('limitBytes', o.limitBytes, 'must be greater than 0');
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    causes.push({ reason: 'FieldValueForbidden', field: '', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0');
  if (causes.length === 0) return;
  // field.Error's text is "<field>: <body>", an empty field included.
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  throw new StatusError('Invalid', `PodLogOptions "${name}" is invalid: ${summary}`, { name, kind: 'PodLogOptions', causes });
}

interface Container {
  name?: string;
}

/** LogLocation's validateContainer: the named container must exist; unnamed, the pod must have exactly one. */
export function chooseContainer(pod: KubeObject, container: string): string {
  const spec = (pod.spec ?? {}) as { initContainers?: Container[]; containers?: Container[]; ephemeralContainers?: Container[] };
  const name = pod.metadata.name ?? '';
  // podutil.VisitContainers order: init containers, containers, ephemeral containers.
  const all = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name ?? '');
  if (container === '') {
    const containers = spec.containers ?? [];
    if (containers.length === 1) return containers[0]?.name ?? '';
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The kubelet's query: only the options set, in url.Values.Encode's (sorted) order. */
export function kubeletLogQuery(o: PodLogOptions): string {
  const p: [string, string][] = [];
  if (o.follow) p.push(['follow', 'true']);
  if (o.previous) p.push(['previous', 'true']);
  if (o.timestamps) p.push(['timestamps', 'true']);
  if (o.sinceSeconds !== undefined) p.push(['sinceSeconds', String(o.sinceSeconds)]);
  if (o.sinceTime !== undefined) p.push(['sinceTime', formatTime(o.sinceTime)]);
  if (o.tailLines !== undefined) p.push(['tailLines', String(o.tailLines)]);
  if (o.limitBytes !== undefined) p.push(['limitBytes', String(o.limitBytes)]);
  p.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new URLSearchParams(p).toString();
}

/** A Status with no reason: what kube-apiserver makes of an error that is not an API status (ErrorToAPIStatus). */
function unknownError(message: string): ApiReply {
  const body: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 };
  return { code: 500, body };
}

const MAX_ERROR_BODY = 50_000;

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      if (size < MAX_ERROR_BODY) chunks.push(c.subarray(0, MAX_ERROR_BODY - size));
      size += c.length;
      if (size >= MAX_ERROR_BODY) res.destroy();
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const GENERIC: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** GenericHttpResponseChecker: a kubelet answer outside 200–206 as the Status kube-apiserver returns. */
export function kubeletErrorStatus(code: number, body: string, pod: string): Status {
  const base = { kind: 'Status' as const, apiVersion: 'v1' as const, metadata: {}, status: 'Failure' as const, code };
  if (code === 500) return { ...base, message: `Internal error occurred: ${body}`, reason: 'InternalError', details: { causes: [{ message: body }] } };
  if (code === 400) return { ...base, message: body, reason: 'BadRequest' };
  // errors.NewGenericServerResponse(code, "", pods/log, name, body): some codes keep the server's words.
  let [reason, message] = GENERIC[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (code === 403) [reason, message] = ['Forbidden', body];
  else if (code === 406) [reason, message] = ['NotAcceptable', body === '' || body === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : body];
  else if (code === 415) [reason, message] = ['UnsupportedMediaType', body];
  else if (!GENERIC[code] && code >= 500) [reason, message] = ['InternalError', `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`];
  return { ...base, message: `${message} ( pods/log ${pod})`, ...(reason ? { reason } : {}), details: { name: pod, kind: 'pods/log' } };
}

/** Copies the kubelet's body to the client until either side ends; a gone client closes the kubelet connection. */
function relay(from: IncomingMessage, to: ServerResponse): void {
  if (to.destroyed || to.writableEnded) {
    from.destroy();
    return;
  }
  to.once('close', () => from.destroy());
  // The kubelet ending early (or its connection breaking) ends the reply, as io.Copy returning does.
  from.once('aborted', () => to.end());
  from.once('error', () => to.end());
  from.pipe(to);
}

export async function podLog(ctx: ApiContext, req: ApiRequest): Promise<ApiReply> {
  const kubelet = ctx.kubeletClient;
  const t = req.target;
  const name = t.name ?? '';
  const opts = parsePodLogOptions(req.query);
  validatePodLogOptions(name, opts);
  const pod = await ctx.registry.get(R.pods, t.namespace, name);
  const container = chooseContainer(pod, opts.container);
  const nodeName = ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
  // LogLocation returns no location for an unscheduled pod; StreamObject answers a null stream with 204.
  if (nodeName === '') return { code: 204, body: undefined, raw: { contentType: 'text/plain', text: '' } };
  const node = await ctx.registry.get(R.nodes, undefined, nodeName);
  let url: URL;
  try {
    url = kubelet.url(kubelet.connectionInfo(node), `/containerLogs/${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}/${container}`, kubeletLogQuery(opts));
  } catch (e) {
    if (e instanceof NoPreferredAddressError) return unknownError(e.message);
    throw e;
  }
  let res: IncomingMessage;
  try {
    res = await kubelet.get(url, { insecureSkipTLSVerify: opts.insecureSkipTLSVerifyBackend });
  } catch (e) {
    if (e instanceof KubeletRequestError) return unknownError(e.message);
    throw e;
  }
  const code = res.statusCode ?? 0;
  if (code < 200 || code > 206) {
    const status = kubeletErrorStatus(code, await readBody(res), name);
    return { code, body: status };
  }
  return { code: 200, body: undefined, stream: { contentType: 'text/plain', start: (out) => relay(res, out) } };
}

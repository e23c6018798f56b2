// The shell's HTTP clients, busybox wget and curl, over the emulated cluster network (network.ts). Each parses
// its options, makes one exchange and answers with what the real tool writes: the body, busybox's progress
// lines, and their error texts and exit codes (wget 1; curl 6, 7, 22, 28).
import type { Result } from './builtins.ts';
import type { HttpExchange, HttpOutcome, ShellNetwork } from './network.ts';

export interface HttpClientIO {
  network: ShellNetwork;
  /** Writes a file of the container (wget without -O-, curl -o). */
  writeFile(path: string, text: string): void;
  fileExists(path: string): boolean;
  signal?: AbortSignal;
}

interface Url {
  host: string;
  port: number;
  path: string;
}

/** `http://host:port/path`, or `host/path` (both tools default to http); undefined when it is not one. */
export function parseUrl(raw: string): Url | { scheme: string } | undefined {
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?(\[[^\]]+\]|[^/:?#]+)(?::(\d+))?([/?][^#]*)?/.exec(raw);
  if (!m) return undefined;
  const scheme = (m[1] ?? 'http').toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return { scheme };
  const port = m[3] !== undefined ? Number(m[3]) : scheme === 'https' ? 443 : 80;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  let path = m[4] ?? '/';
  if (path.startsWith('?')) path = `/${path}`;
  return { host: (m[2] ?? '').replace(/^\[|\]$/g, ''), port, path };
}

async function exchange(io: HttpClientIO, req: HttpExchange, timeoutMs: number | undefined): Promise<HttpOutcome> {
  try {
    const signal = timeoutMs !== undefined ? AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(io.signal ? [io.signal] : [])]) : io.signal;
    return await io.network.request(req, signal);
  } catch {
    return { kind: 'error', error: 'timeout' };
  }
}

function hostHeader(u: Url): string {
  return u.port === 80 ? u.host : `${u.host}:${u.port}`;
}

/** busybox's progress line for a finished transfer (no terminal: printed once at the end). */
function progress(name: string, size: number): string {
  const label = name.length > 20 ? name.slice(0, 20) : name.padEnd(20);
  return `${label} 100% |********************************| ${String(size).padStart(5)}  0:00:00 ETA\n`;
}

/** busybox wget: `wget [-q] [-O FILE|-] [-S] [--spider] [-T SEC] [--header 'K: V'] [--post-data STR] [-U AGENT] URL…`. */
export async function wget(args: readonly string[], io: HttpClientIO): Promise<Result> {
  let quiet = false;
  let output: string | undefined;
  let spider = false;
  let timeoutMs: number | undefined;
  let postData: string | undefined;
  const headers: Record<string, string> = {};
  let agent = 'Wget';
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const value = (inline: string): string | undefined => (inline !== '' ? inline : args[++i]);
    if (a === '--spider') spider = true;
    else if (a === '--quiet') quiet = true;
    else if (a.startsWith('--output-document')) output = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
    else if (a.startsWith('--header')) {
      const h = a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[++i] ?? '');
      const c = h.indexOf(':');
      if (c > 0) headers[h.slice(0, c).trim()] = h.slice(c + 1).trim();
    } else if (a.startsWith('--post-data')) postData = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
    else if (a.startsWith('--timeout')) timeoutMs = Number(a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i]) * 1000;
    else if (a.startsWith('--user-agent')) agent = (a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i]) ?? agent;
    else if (a.startsWith('--')) continue;
    else if (a.startsWith('-') && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const f = a[k];
        if (f === 'q') quiet = true;
        else if (f === 's' || f === 'S' || f === 'c') continue;
        else if (f === 'O' || f === 'T' || f === 'U' || f === 'o' || f === 'Y' || f === 'P') {
          const v = value(a.slice(k + 1));
          if (f === 'O') output = v;
          if (f === 'T') timeoutMs = Number(v) * 1000;
          if (f === 'U' && v !== undefined) agent = v;
          break;
        } else return { out: '', err: `wget: invalid option -- '${f}'\nBusyBox v1.28.4 (2018-05-22 17:00:17 UTC) multi-call binary.\n\nUsage: wget [-c|--continue] [--spider] [-q|--quiet] [-O|--output-document FILE]\n`, status: 1 };
      }
    } else urls.push(a);
  }
  if (urls.length === 0) return { out: '', err: 'BusyBox v1.28.4 (2018-05-22 17:00:17 UTC) multi-call binary.\n\nUsage: wget [-c|--continue] [--spider] [-q|--quiet] [-O|--output-document FILE]\n', status: 1 };
  let out = '';
  let err = '';
  for (const raw of urls) {
    const u = parseUrl(raw);
    if (!u) return { out, err: `${err}wget: bad address '${raw}'\n`, status: 1 };
    if (!('host' in u)) return { out, err: `${err}wget: not an http or ftp url: ${raw}\n`, status: 1 };
    const target = output ?? (u.path.split('?')[0]?.split('/').pop() || 'index.html');
    if (!spider && target !== '-' && output === undefined && io.fileExists(target)) return { out, err: `${err}wget: can't open '${target}': File exists\n`, status: 1 };
    const req: HttpExchange = {
      method: postData !== undefined ? 'POST' : spider ? 'HEAD' : 'GET',
      host: u.host,
      port: u.port,
      path: u.path,
      headers: { Host: hostHeader(u), 'User-Agent': agent, Connection: 'close', ...(postData !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      ...(postData !== undefined ? { body: postData } : {}),
    };
    const r = await exchange(io, req, timeoutMs);
    if (r.kind === 'error') {
      if (r.error === 'unknown-host') return { out, err: `${err}wget: bad address '${u.host}'\n`, status: 1 };
      if (!quiet) err += `Connecting to ${hostHeader(u)} (${r.address ?? u.host}:${u.port})\n`;
      if (r.error === 'timeout') return { out, err: `${err}wget: download timed out\n`, status: 1 };
      return { out, err: `${err}wget: can't connect to remote host (${r.address ?? u.host}): Connection refused\n`, status: 1 };
    }
    if (!quiet) err += `Connecting to ${hostHeader(u)} (${r.address}:${u.port})\n`;
    if (r.status >= 400) return { out, err: `${err}wget: server returned error: HTTP/${r.httpVersion} ${r.status} ${r.statusText}\n`, status: 1 };
    if (spider) {
      if (!quiet) err += 'remote file exists\n';
      continue;
    }
    const size = Buffer.byteLength(r.body);
    if (target === '-') {
      if (!quiet) err += 'writing to stdout\n';
      out += r.body;
      if (!quiet) err += `${progress('-', size)}written to stdout\n`;
    } else {
      io.writeFile(target, r.body);
      if (!quiet) err += `saving to '${target}'\n${progress(target, size)}'${target}' saved\n`;
    }
  }
  return { out, err, status: 0 };
}

const CURL_HELP = "curl: try 'curl --help' or 'curl --manual' for more information\n";

/** curl's progress meter when its output is not a terminal (kubectl exec without -t). */
function meter(size: number): string {
  const s = String(size).padStart(5);
  return (
    '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n' +
    '                                 Dload  Upload   Total   Spent    Left  Speed\n' +
    `\r100 ${s}  100 ${s}    0     0   ${String(size).padStart(4)}      0 --:--:-- --:--:-- --:--:--  ${String(size).padStart(4)}\n`
  );
}

/** curl: `curl [-sSfiIL] [-o FILE] [-X METHOD] [-H 'K: V'] [-d DATA] [-m SEC] URL…`. */
export async function curl(args: readonly string[], io: HttpClientIO): Promise<Result> {
  let silent = false;
  let showError = false;
  let fail = false;
  let include = false;
  let head = false;
  let method: string | undefined;
  let output: string | undefined;
  let data: string | undefined;
  let timeoutMs: number | undefined;
  const headers: Record<string, string> = {};
  const urls: string[] = [];
  const LONG: Record<string, string> = {
    '--silent': 's', '--show-error': 'S', '--fail': 'f', '--include': 'i', '--head': 'I', '--location': 'L', '--insecure': 'k', '--verbose': 'v',
    '--output': 'o', '--request': 'X', '--header': 'H', '--data': 'd', '--data-raw': 'd', '--data-binary': 'd', '--max-time': 'm', '--connect-timeout': 'm', '--user-agent': 'A',
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    let flags: string;
    if (a.startsWith('--')) {
      const f = LONG[a];
      if (!f) return { out: '', err: `curl: option ${a}: is unknown\n${CURL_HELP}`, status: 2 };
      flags = f;
    } else if (a.startsWith('-') && a.length > 1) flags = a.slice(1);
    else {
      urls.push(a);
      continue;
    }
    for (let k = 0; k < flags.length; k++) {
      const f = flags[k] ?? '';
      if ('oXHdmA'.includes(f)) {
        const v = k + 1 < flags.length ? flags.slice(k + 1) : args[++i];
        if (v === undefined) return { out: '', err: `curl: option -${f}: requires parameter\n${CURL_HELP}`, status: 2 };
        if (f === 'o') output = v;
        else if (f === 'X') method = v;
        else if (f === 'd') data = data === undefined ? v : `${data}&${v}`;
        else if (f === 'm') timeoutMs = Number(v) * 1000;
        else if (f === 'A') headers['User-Agent'] = v;
        else {
          const c = v.indexOf(':');
          if (c > 0) headers[v.slice(0, c).trim()] = v.slice(c + 1).trim();
        }
        break;
      }
      if (f === 's') silent = true;
      else if (f === 'S') showError = true;
      else if (f === 'f') fail = true;
      else if (f === 'i') include = true;
      else if (f === 'I') head = true;
      else if (f === 'L' || f === 'k' || f === 'v') continue;
      else return { out: '', err: `curl: option -${f}: is unknown\n${CURL_HELP}`, status: 2 };
    }
  }
  if (urls.length === 0) return { out: '', err: `curl: no URL specified\n${CURL_HELP}`, status: 2 };
  const errors = !silent || showError;
  let out = '';
  let err = '';
  for (const raw of urls) {
    const u = parseUrl(raw);
    if (!u) return { out, err: errors ? `${err}curl: (3) URL rejected: Bad hostname\n` : err, status: 3 };
    if (!('host' in u)) return { out, err: errors ? `${err}curl: (1) Protocol "${u.scheme}" not supported\n` : err, status: 1 };
    const req: HttpExchange = {
      method: method ?? (head ? 'HEAD' : data !== undefined ? 'POST' : 'GET'),
      host: u.host,
      port: u.port,
      path: u.path,
      headers: { Host: hostHeader(u), 'User-Agent': 'curl/8.11.0', Accept: '*/*', ...(data !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      ...(data !== undefined ? { body: data } : {}),
    };
    const r = await exchange(io, req, timeoutMs);
    if (r.kind === 'error') {
      if (r.error === 'unknown-host') return { out, err: errors ? `${err}curl: (6) Could not resolve host: ${u.host}\n` : err, status: 6 };
      if (r.error === 'timeout') return { out, err: errors ? `${err}curl: (28) Connection timed out after ${timeoutMs ?? 0} milliseconds\n` : err, status: 28 };
      return { out, err: errors ? `${err}curl: (7) Failed to connect to ${u.host} port ${u.port} after 0 ms: Couldn't connect to server\n` : err, status: 7 };
    }
    if (fail && r.status >= 400) return { out, err: errors ? `${err}curl: (22) The requested URL returned error: ${r.status}\n` : err, status: 22 };
    let text = include || head ? `HTTP/${r.httpVersion} ${r.status} ${r.statusText}\r\n${r.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n` : '';
    if (!head) text += r.body;
    if (output !== undefined && output !== '-') io.writeFile(output, text);
    else out += text;
    if (!silent && output !== undefined && output !== '-') err += meter(Buffer.byteLength(r.body));
  }
  return { out, err, status: 0 };
}

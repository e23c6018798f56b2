// What kube-apiserver's proxy transport (apimachinery util/proxy transport.go, with upgradeaware's
// defaultProxyTransport) does to a proxied answer: a Location header and the URL-valued attributes of an HTML
// page that point at the backend itself (same host, or a path from the root) are put under the proxy prefix
// (/api/v1/namespaces/<ns>/services/<name>/proxy), so a browser following them stays in the proxy; relative
// and other-host links are left alone. Every start tag of the page is written back as Go's tokenizer prints
// it (lower-case names, double-quoted escaped values); everything else passes byte for byte. CORS headers
// from the backend are dropped (corsRemovingTransport).
import zlib from 'node:zlib';

/** Which attributes of which tags hold URLs (transport.go's atomsToAttrs). */
const URL_ATTRS: Record<string, readonly string[]> = {
  a: ['href'],
  applet: ['codebase'],
  area: ['href'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  body: ['background'],
  button: ['formaction'],
  command: ['icon'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  frame: ['longdesc', 'src'],
  head: ['profile'],
  html: ['manifest'],
  iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'],
  ins: ['cite'],
  link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'],
  script: ['src'],
  source: ['src'],
  video: ['poster', 'src'],
};

/** The elements whose content the tokenizer reads as raw text up to their end tag. */
const RAW_TEXT = new Set(['iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'script', 'style', 'textarea', 'title', 'xmp']);

/** The headers corsRemovingTransport deletes from every answer. */
export const CORS_HEADERS = ['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin'];

export interface RewriteTarget {
  /** The prefix the backend's root is reached under: the request path without the proxied path. */
  pathPrepend: string;
  /** The backend's host:port (the pod or endpoint address the proxy reached). */
  backendHost: string;
  /** The Host the client asked for. */
  requestHost: string;
}

/** path.Join of two absolute paths (Go's Clean: no empty, "." or ".." segments, no trailing slash). */
function joinPaths(a: string, b: string): string {
  const out: string[] = [];
  for (const seg of `${a}/${b}`.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

/**
 * One URL rewritten (transport.go's rewriteURL with empty Scheme and Host, as an apiserver's request URL has):
 * a URL whose path is absolute and whose host is absent, the backend's or the requested one gets the prefix
 * and loses scheme and host; anything else is returned as it is.
 */
export function rewriteURL(target: string, t: RewriteTarget): string {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(.*)$/s.exec(target);
  if (!m) return target;
  const [, scheme, authority, path = '', rest = ''] = m;
  // "mailto:x" and the like are opaque: no path from the root.
  if (scheme !== undefined && authority === undefined && !path.startsWith('/')) return target;
  const host = authority === undefined ? '' : authority.replace(/^[^@]*@/, '');
  const differentHost = host !== '' && host !== t.backendHost && host !== t.requestHost;
  if (differentHost || !path.startsWith('/')) return target;
  // The requested host itself, with no host of our own to put instead, keeps its scheme and host.
  const keepOrigin = host !== '' && host === t.requestHost;
  const origin = keepOrigin ? `${scheme !== undefined ? `${scheme}:` : ''}//${authority ?? ''}` : '';
  if (path.startsWith(t.pathPrepend)) return `${origin}${path}${rest}`;
  let joined = joinPaths(t.pathPrepend, path);
  if (path.endsWith('/') && !joined.endsWith('/')) joined += '/';
  return `${origin}${joined}${rest}`;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references in an attribute value, as the tokenizer unescapes them (the common ones). */
function unescapeAttr(v: string): string {
  return v.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z]+);?/g, (all, ref: string) => {
    if (ref.startsWith('#')) {
      const n = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '\ufffd';
    }
    return NAMED[ref] ?? all;
  });
}

/** html.EscapeString's escaping of an attribute value. */
function escapeAttr(v: string): string {
  return v.replace(/[&'<>"\r]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\r': '&#13;' })[c] ?? c);
}

interface StartTag {
  name: string;
  attrs: [string, string][];
  selfClosing: boolean;
  end: number;
}

/** A start tag at `i` (just after "<" + a letter), read as the tokenizer reads it; undefined when the page ends inside it. */
function readStartTag(s: string, i: number): StartTag | undefined {
  let j = i;
  while (j < s.length && !/[\s/>]/.test(s[j] as string)) j++;
  const name = s.slice(i, j).toLowerCase();
  const attrs: [string, string][] = [];
  let selfClosing = false;
  for (;;) {
    while (j < s.length && /[\s/]/.test(s[j] as string)) {
      selfClosing = s[j] === '/';
      j++;
    }
    if (j >= s.length) return undefined;
    if (s[j] === '>') return { name, attrs, selfClosing, end: j + 1 };
    selfClosing = false;
    const k0 = j;
    j++;
    while (j < s.length && !/[\s/>=]/.test(s[j] as string)) j++;
    const key = s.slice(k0, j).toLowerCase();
    while (j < s.length && /\s/.test(s[j] as string)) j++;
    let value = '';
    if (s[j] === '=') {
      j++;
      while (j < s.length && /\s/.test(s[j] as string)) j++;
      const q = s[j];
      if (q === '"' || q === "'") {
        const close = s.indexOf(q, j + 1);
        if (close < 0) return undefined;
        value = s.slice(j + 1, close);
        j = close + 1;
      } else {
        const v0 = j;
        while (j < s.length && !/[\s>]/.test(s[j] as string)) j++;
        value = s.slice(v0, j);
      }
    }
    attrs.push([key, unescapeAttr(value)]);
  }
}

/** An HTML page with its URL-valued attributes rewritten by `rewrite` (transport.go's rewriteHTML). */
export function rewriteHTML(page: string, rewrite: (url: string) => string): string {
  let out = '';
  let i = 0;
  while (i < page.length) {
    const lt = page.indexOf('<', i);
    if (lt < 0) {
      out += page.slice(i);
      break;
    }
    out += page.slice(i, lt);
    const next = page[lt + 1] ?? '';
    if (page.startsWith('<!--', lt)) {
      const end = page.indexOf('-->', lt + 4);
      const stop = end < 0 ? page.length : end + 3;
      out += page.slice(lt, stop);
      i = stop;
    } else if (next === '!' || next === '?' || next === '/') {
      const end = page.indexOf('>', lt);
      const stop = end < 0 ? page.length : end + 1;
      out += page.slice(lt, stop);
      i = stop;
    } else if (/[A-Za-z]/.test(next)) {
      const tag = readStartTag(page, lt + 1);
      if (!tag) {
        out += page.slice(lt);
        break;
      }
      const urlAttrs = URL_ATTRS[tag.name] ?? [];
      const attrs = tag.attrs.map(([k, v]) => ` ${k}="${escapeAttr(urlAttrs.includes(k) ? rewrite(v) : v)}"`).join('');
      out += `<${tag.name}${attrs}${tag.selfClosing ? '/>' : '>'}`;
      i = tag.end;
      if (RAW_TEXT.has(tag.name) && !tag.selfClosing) {
        // Raw text runs to the element's end tag, which the next round copies.
        const close = new RegExp(`</${tag.name}[\\s/>]`, 'i').exec(page.slice(i));
        const stop = close ? i + close.index : page.length;
        out += page.slice(i, stop);
        i = stop;
      }
    } else {
      out += '<';
      i = lt + 1;
    }
  }
  return out;
}

/** The media type of a Content-Type header, without parameters. */
function mediaType(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
  return (s.split(';')[0] ?? '').trim();
}

/** Whether an answer's body gets rewritten: text/html in an encoding the transport can read (none, gzip, deflate). */
export function rewritesBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers.location !== undefined) return false;
  const enc = headers['content-encoding'];
  return mediaType(headers['content-type']) === 'text/html' && (enc === undefined || enc === 'gzip' || enc === 'deflate');
}

/** A page's body rewritten, decoded and encoded again with its Content-Encoding. */
export function rewriteBody(body: Buffer, encoding: string | undefined, t: RewriteTarget): Buffer {
  const decoded = encoding === 'gzip' ? zlib.gunzipSync(body) : encoding === 'deflate' ? zlib.inflateRawSync(body) : body;
  const page = rewriteHTML(decoded.toString('utf8'), (u) => rewriteURL(u, t));
  const bytes = Buffer.from(page, 'utf8');
  return encoding === 'gzip' ? zlib.gzipSync(bytes) : encoding === 'deflate' ? zlib.deflateRawSync(bytes, { level: 9 }) : bytes;
}

/** The proxy prefix of a request path: the path without the part passed to the backend (upgradeaware's pathPrepend). */
export function pathPrepend(requestPath: string, backendPath: string): string {
  return requestPath.endsWith(backendPath) ? requestPath.slice(0, requestPath.length - backendPath.length) : requestPath;
}
